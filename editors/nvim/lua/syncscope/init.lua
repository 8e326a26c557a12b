-- Syncscope: Neovim client for the `syncscope lsp` language server, which
-- proves CUDA kernels free of data races and barrier divergence.
--
--   require("syncscope").setup({
--     cmd = { "syncscope", "lsp" },
--     settings = { blockDim = { 256 }, defines = { TILE = "16" } },
--     filetypes = { "cuda" },
--   })
--
-- Works with Neovim 0.7+ (`vim.lsp.start` on 0.8+, `vim.lsp.start_client` +
-- `vim.lsp.buf_attach_client` on 0.7). On Neovim 0.11+ the plugin also
-- works without setup(): `vim.lsp.enable("syncscope")` reads the default
-- configuration from `lsp/syncscope.lua` (see README.md).

local M = {}

local defaults = {
  -- Command that starts the server (stdio).
  cmd = { "syncscope", "lsp" },
  -- Server configuration: blockDim, gridDim, defines, warpSync, bitvector,
  -- timeoutMs, debounceMs, kernels. Sent as initializationOptions, as
  -- `settings.syncscope` (workspace/didChangeConfiguration and
  -- workspace/configuration).
  settings = {},
  filetypes = { "cuda" },
  -- Files/directories marking the workspace root (nearest upwards wins,
  -- earlier markers first).
  root_markers = { "syncscope.toml", ".git" },
  name = "syncscope",
  -- Start automatically for buffers with one of `filetypes`.
  autostart = true,
  -- Register `*.cu` / `*.cuh` as filetype `cuda` when nothing else did.
  register_filetype = true,
  -- Create :SyncscopeVerify, :SyncscopeRestart, :SyncscopeStats, :SyncscopeCompare.
  create_commands = true,
  on_attach = nil,
  -- Called as on_exit(code, signal, client_id) when a server process exits.
  on_exit = nil,
  -- Called with each `syncscope/status` notification's params.
  on_status = nil,
  capabilities = nil,
  handlers = nil,
  flags = nil,
  -- Passed through to the client config (`cmd_env`, `cmd_cwd`, ...).
  extra = nil,
}

M.config = nil
-- Latest `syncscope/status` params per document URI.
M.statuses = {}

local augroup = nil
-- 0.7 only: client id per root directory (0.8+ lets vim.lsp.start reuse).
local clients_by_root = {}

local function has(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.notify("[syncscope] " .. msg, level or vim.log.levels.INFO)
end

-- Lua tables that must be JSON objects even when empty (0.7's vim.json
-- encodes `{}` as `[]`).
local function as_dict(t)
  if t == nil or (type(t) == "table" and next(t) == nil) then
    return vim.empty_dict()
  end
  return t
end

--- Normalises user settings: accepts either the contents of the `syncscope`
--- section or `{ syncscope = { ... } }`.
function M.normalize_settings(settings)
  settings = settings or {}
  if type(settings.syncscope) == "table" then
    local only = true
    for k, _ in pairs(settings) do
      if k ~= "syncscope" then
        only = false
      end
    end
    if only then
      settings = settings.syncscope
    end
  end
  local out = {}
  for k, v in pairs(settings) do
    out[k] = v
  end
  if out.defines ~= nil then
    local defines = {}
    for name, value in pairs(out.defines) do
      if value == true or value == vim.NIL then
        value = "1"
      elseif value == false then
        value = "0"
      end
      defines[name] = tostring(value)
    end
    out.defines = as_dict(defines)
  end
  return as_dict(out)
end

local function find_root(fname, markers)
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  for _, marker in ipairs(markers or {}) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found == "" then
      found = vim.fn.finddir(marker, dir .. ";")
    end
    if found ~= "" then
      local root = vim.fn.fnamemodify(found, ":p:h"):gsub("/%.git/?$", "")
      root = root:gsub("/$", "")
      return root ~= "" and root or "/"
    end
  end
  return dir
end

local function client_call(client, method, ...)
  if has("nvim-0.11") then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- Clients of this plugin attached to `bufnr` (all buffers when nil).
function M.get_clients(bufnr)
  local name = (M.config or defaults).name
  local list = {}
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = name })
  elseif bufnr ~= nil then
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == name then
        table.insert(list, c)
      end
    end
  else
    for _, c in pairs(vim.lsp.get_active_clients()) do
      if c.name == name then
        table.insert(list, c)
      end
    end
  end
  return list
end

local function status_handler(_, result, ctx)
  if type(result) ~= "table" or type(result.uri) ~= "string" then
    return
  end
  local prev = M.statuses[result.uri]
  if prev and type(prev.version) == "number" and type(result.version) == "number" and result.version < prev.version then
    return
  end
  M.statuses[result.uri] = result
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "SyncscopeStatus", modeline = false })
  if M.config and M.config.on_status then
    M.config.on_status(result, ctx)
  end
end

--- Short verdict text for a statusline, e.g. "syncscope: verified".
function M.status(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local s = M.statuses[vim.uri_from_bufnr(bufnr)]
  if s == nil then
    return ""
  end
  return "syncscope: " .. tostring(s.verdict)
end

--- The client configuration used for a buffer whose root is `root_dir`.
function M.client_config(root_dir)
  local cfg = M.config or defaults
  local settings = M.normalize_settings(cfg.settings)
  local handlers = { ["syncscope/status"] = status_handler }
  for k, v in pairs(cfg.handlers or {}) do
    handlers[k] = v
  end
  local config = {
    name = cfg.name,
    cmd = cfg.cmd,
    root_dir = root_dir,
    workspace_folders = {
      { uri = vim.uri_from_fname(root_dir), name = root_dir },
    },
    init_options = settings,
    settings = { syncscope = settings },
    handlers = handlers,
    capabilities = cfg.capabilities or vim.lsp.protocol.make_client_capabilities(),
    on_attach = cfg.on_attach,
    on_exit = function(code, signal, client_id)
      if code ~= 0 and not M._stopping then
        vim.schedule(function()
          notify(("server exited with code %s (signal %s)"):format(tostring(code), tostring(signal)), vim.log.levels.WARN)
        end)
      end
      if cfg.on_exit then
        cfg.on_exit(code, signal, client_id)
      end
    end,
    flags = cfg.flags,
  }
  for k, v in pairs(cfg.extra or {}) do
    config[k] = v
  end
  return config
end

--- Starts (or reuses) the server for `bufnr` and attaches it. Returns the
--- client id, or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == "" then
    return nil
  end
  local cfg = M.config or defaults
  if vim.fn.executable(cfg.cmd[1]) ~= 1 then
    if not M._warned_missing then
      M._warned_missing = true
      notify(("server command %q not found or not executable"):format(cfg.cmd[1]), vim.log.levels.ERROR)
    end
    return nil
  end
  local root = find_root(fname, cfg.root_markers)
  local config = M.client_config(root)

  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end

  -- Neovim 0.7.
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil or client_call(client, "is_stopped") then
    id = vim.lsp.start_client(config)
    if id == nil then
      notify("failed to start " .. table.concat(cfg.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Asks the server to re-verify the buffer (`syncscope.verifyFile`).
function M.verify(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local clients = M.get_clients(bufnr)
  if #clients == 0 then
    notify("no syncscope server attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local uri = vim.uri_from_bufnr(bufnr)
  for _, client in ipairs(clients) do
    client_call(client, "request", "workspace/executeCommand", {
      command = "syncscope.verifyFile",
      arguments = { uri },
    }, function(err, result)
      if err then
        notify("verifyFile failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      if on_done then
        on_done(err, result)
      end
    end, bufnr)
  end
  return true
end

--- Prints the server's cache statistics (`syncscope/stats`); calls
--- on_done(err, result) when the server answers.
function M.stats(bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local clients = M.get_clients(bufnr)
  if #clients == 0 then
    clients = M.get_clients(nil)
  end
  if #clients == 0 then
    notify("no syncscope server running", vim.log.levels.WARN)
    return false
  end
  -- The request takes no parameters: send none (`{}` was refused by the
  -- server as invalid params).
  client_call(clients[1], "request", "syncscope/stats", nil, function(err, r)
    if err then
      notify("stats failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif type(r) == "table" then
      notify(
        ("queries run %s, reused %s; kernels analysed %s, reused %s"):format(
          tostring(r.queriesRun),
          tostring(r.queriesReused),
          tostring(r.kernelsAnalysed),
          tostring(r.kernelsReused)
        )
      )
    end
    if on_done then
      on_done(err, r)
    end
  end, bufnr)
  return true
end

--- Stops all syncscope clients and re-attaches the matching buffers.
function M.restart()
  local clients = M.get_clients(nil)
  M._stopping = true
  for _, c in ipairs(clients) do
    client_call(c, "stop")
  end
  clients_by_root = {}
  M.statuses = {}
  vim.wait(3000, function()
    for _, c in ipairs(clients) do
      if not client_call(c, "is_stopped") then
        return false
      end
    end
    return true
  end, 50)
  M._stopping = false
  if M.config == nil and vim.lsp.config and vim.lsp.config.syncscope then
    -- Enabled with vim.lsp.enable (0.11+): start the configured server again
    -- for each buffer it serves.
    local cfg = vim.lsp.config.syncscope
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(cfg.filetypes or {}, vim.bo[b].filetype) then
        local start_cfg = vim.deepcopy(cfg)
        start_cfg.name = "syncscope"
        start_cfg.root_dir = vim.fs.root(b, cfg.root_markers or {})
          or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":p:h")
        vim.lsp.start(start_cfg, { bufnr = b })
      end
    end
    return
  end
  M.attach_all()
end

--- Compares `kernel` of the buffer with another version of it
--- (`syncscope.compareWith`, as `syncscope equiv`): `other` is
--- "FILE:KERNEL" (FILE relative to the current directory, or absolute; an
--- open buffer counts as edited). `opts.assoc`: compare the values as
--- real arithmetic (`syncscope equiv --assoc`: `+` and `*` associative and
--- commutative, an assumption the user makes). Prints the verdict; calls
--- on_done(err, result) when the server answers.
function M.compare(bufnr, kernel, other, on_done, opts)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local clients = M.get_clients(bufnr)
  if #clients == 0 then
    notify("no syncscope server attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local path, other_kernel = tostring(other):match("^(.+):([%a_][%w_]*)$")
  if path == nil then
    notify(("expected FILE:KERNEL, got %q"):format(tostring(other)), vim.log.levels.WARN)
    return false
  end
  local args = { vim.uri_from_bufnr(bufnr), kernel, vim.uri_from_fname(vim.fn.fnamemodify(path, ":p")), other_kernel }
  if opts and opts.assoc then
    table.insert(args, { assoc = true })
  end
  client_call(clients[1], "request", "workspace/executeCommand", {
    command = "syncscope.compareWith",
    arguments = args,
  }, function(err, r)
    if err then
      notify("compare failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif type(r) == "table" then
      local msg = ("%s and %s: %s"):format(kernel, other, tostring(r.verdict))
      if type(r.counterexample) == "table" then
        msg = msg .. (" at %s[%s]"):format(tostring(r.counterexample.array), tostring(r.counterexample.index))
      end
      if r.reason ~= nil then
        msg = msg .. " (" .. tostring(r.reason) .. ")"
      end
      notify(msg, r.verdict == "equivalent" and vim.log.levels.INFO or vim.log.levels.WARN)
    end
    if on_done then
      on_done(err, r)
    end
  end, bufnr)
  return true
end

--- Creates :SyncscopeVerify, :SyncscopeRestart, :SyncscopeStats and
--- :SyncscopeCompare.
function M.create_commands()
  vim.api.nvim_create_user_command("SyncscopeCompare", function(opts)
    local a = opts.fargs
    -- `:SyncscopeCompare!`: as real arithmetic (`--assoc`).
    local how = { assoc = opts.bang }
    if #a == 1 then
      -- The buffer's kernel of the same name as the other version's.
      M.compare(0, tostring(a[1]):match(":([%a_][%w_]*)$") or "", a[1], nil, how)
    else
      M.compare(0, a[1], a[2], nil, how)
    end
  end, {
    nargs = "+",
    bang = true,
    complete = "file",
    desc = "Syncscope: compare a kernel with another version ([KERNEL] FILE:KERNEL; ! assumes + and * associative)",
  })
  vim.api.nvim_create_user_command("SyncscopeVerify", function()
    M.verify(0)
  end, { desc = "Syncscope: re-verify the current file" })
  vim.api.nvim_create_user_command("SyncscopeRestart", function()
    M.restart()
  end, { desc = "Syncscope: restart the language server" })
  vim.api.nvim_create_user_command("SyncscopeStats", function()
    M.stats(0)
  end, { desc = "Syncscope: show the server's cache statistics" })
end

--- The configuration for Neovim 0.11's `vim.lsp.config` (what
--- `lsp/syncscope.lua` returns): the server command, filetypes, root
--- markers, settings and the `syncscope/status` handler; the user commands
--- are created when the server attaches.
function M.lsp_config(opts)
  opts = opts or {}
  local settings = M.normalize_settings(opts.settings)
  return {
    cmd = opts.cmd or defaults.cmd,
    filetypes = opts.filetypes or defaults.filetypes,
    root_markers = opts.root_markers or defaults.root_markers,
    init_options = settings,
    settings = { syncscope = settings },
    handlers = { ["syncscope/status"] = status_handler },
    on_attach = function()
      M.create_commands()
    end,
  }
end

--- The server command and settings in effect: from setup(), else from
--- `vim.lsp.config.syncscope` (0.11+), else the defaults. Used by
--- `:checkhealth syncscope`.
function M.effective_config()
  if M.config then
    return { source = "require('syncscope').setup()", cmd = M.config.cmd, settings = M.normalize_settings(M.config.settings) }
  end
  local ok, cfg = pcall(function()
    return vim.lsp.config and vim.lsp.config.syncscope
  end)
  if ok and type(cfg) == "table" and cfg.cmd then
    local settings = type(cfg.settings) == "table" and cfg.settings.syncscope or cfg.init_options
    return { source = "vim.lsp.config('syncscope')", cmd = cfg.cmd, settings = settings or vim.empty_dict() }
  end
  return { source = "defaults (neither setup() nor vim.lsp.config)", cmd = defaults.cmd, settings = vim.empty_dict() }
end

local function wants(bufnr)
  local cfg = M.config or defaults
  local ft = vim.bo[bufnr].filetype
  for _, f in ipairs(cfg.filetypes) do
    if f == ft then
      return true
    end
  end
  return false
end

--- Attaches every loaded buffer with a matching filetype.
function M.attach_all()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and wants(b) then
      M.attach(b)
    end
  end
end

function M.setup(opts)
  opts = opts or {}
  local cfg = {}
  for k, v in pairs(defaults) do
    cfg[k] = v
  end
  for k, v in pairs(opts) do
    cfg[k] = v
  end
  if type(cfg.cmd) == "string" then
    cfg.cmd = { cfg.cmd, "lsp" }
  end
  if type(cfg.filetypes) == "string" then
    cfg.filetypes = { cfg.filetypes }
  end
  M.config = cfg

  augroup = vim.api.nvim_create_augroup("syncscope", { clear = true })

  if cfg.register_filetype then
    if vim.filetype and vim.filetype.add then
      vim.filetype.add({ extension = { cu = "cuda", cuh = "cuda" } })
    end
    -- Also for 0.7 (where filetype.lua is opt-in) and `-u NONE` sessions
    -- without `filetype on`.
    vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
      group = augroup,
      pattern = { "*.cu", "*.cuh" },
      callback = function(args)
        if vim.bo[args.buf].filetype == "" then
          vim.bo[args.buf].filetype = "cuda"
        end
      end,
    })
  end

  if cfg.autostart then
    vim.api.nvim_create_autocmd("FileType", {
      group = augroup,
      pattern = cfg.filetypes,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
  end

  vim.api.nvim_create_autocmd("BufWipeout", {
    group = augroup,
    callback = function(args)
      M.statuses[vim.uri_from_bufnr(args.buf)] = nil
    end,
  })

  if cfg.create_commands then
    M.create_commands()
  end

  if cfg.autostart then
    -- Buffers opened before setup() ran.
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        local name = vim.api.nvim_buf_get_name(b)
        if cfg.register_filetype and vim.bo[b].filetype == "" and (name:match("%.cu$") or name:match("%.cuh$")) then
          vim.bo[b].filetype = "cuda" -- fires FileType -> attach
        elseif wants(b) then
          M.attach(b)
        end
      end
    end
  end
  return M
end

return M
