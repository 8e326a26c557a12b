-- :checkhealth syncscope — the server binary, its version, the
-- configuration in effect and the running clients.
local M = {}

-- vim.health on 0.10+, the `health` module before.
local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error_ = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  local syncscope = require("syncscope")
  local v = vim.version()
  start("syncscope: Neovim")
  info(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  if vim.fn.has("nvim-0.11") == 1 then
    ok("vim.lsp.config / vim.lsp.enable available (lsp/syncscope.lua is on 'runtimepath')")
  else
    info("Neovim < 0.11: use require('syncscope').setup() or nvim-lspconfig")
  end

  local cfg = syncscope.effective_config()
  start("syncscope: server binary")
  info("configured by " .. cfg.source)
  local cmd = cfg.cmd or {}
  local exe = cmd[1] and vim.fn.exepath(cmd[1]) or ""
  if exe == "" then
    error_(
      ("server command %q not found or not executable"):format(tostring(cmd[1])),
      { "cargo install --locked --path server/syncscope (from the Syncscope repository)", "or set cmd = { '/path/to/syncscope', 'lsp' }" }
    )
  else
    ok("binary: " .. exe)
    local out = vim.fn.system({ exe, "--version" })
    if vim.v.shell_error == 0 and out:match("^syncscope ") then
      ok("version: " .. vim.trim(out))
    else
      error_(("`%s --version` failed: %s"):format(exe, vim.trim(out)))
    end
  end
  info("command: " .. table.concat(cmd, " "))

  start("syncscope: configuration")
  info("settings sent to the server: " .. vim.inspect(cfg.settings, { newline = " ", indent = "" }))
  local buf = vim.api.nvim_buf_get_name(0)
  local dir = buf ~= "" and vim.fn.fnamemodify(buf, ":p:h") or vim.fn.getcwd()
  local toml = vim.fn.findfile("syncscope.toml", dir .. ";")
  if toml ~= "" then
    ok("syncscope.toml: " .. vim.fn.fnamemodify(toml, ":p"))
  else
    info("no syncscope.toml above " .. dir .. " (launch sizes are symbolic unless set)")
  end

  start("syncscope: clients")
  local clients = syncscope.get_clients(nil)
  if #clients == 0 then
    warn("no syncscope client running (open a .cu file)")
  end
  for _, c in ipairs(clients) do
    local root = c.config and c.config.root_dir or "?"
    ok(("client %d running, root %s"):format(c.id, tostring(root)))
  end
end

return M
