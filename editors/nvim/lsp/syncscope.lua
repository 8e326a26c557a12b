-- Default configuration of the syncscope language server for Neovim 0.11+
-- (`vim.lsp.config` reads `lsp/<name>.lua` from 'runtimepath'). With this
-- directory (editors/nvim) on 'runtimepath':
--
--   vim.lsp.config("syncscope", { settings = { syncscope = { blockDim = { 256 } } } })
--   vim.lsp.enable("syncscope")
--
-- nvim-lspconfig finds this file the same way.
return require("syncscope").lsp_config()
