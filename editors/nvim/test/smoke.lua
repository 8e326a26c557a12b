-- Plugin smoke test that needs no language server: loading, setup(),
-- filetype registration, settings mapping, and starting a client with a
-- dummy command that exits at once. Run by smoke.sh.
local plugin_dir = assert(os.getenv("SYNCSCOPE_E2E_PLUGIN"))
local workdir = assert(os.getenv("SYNCSCOPE_SMOKE_DIR"))
vim.opt.runtimepath:prepend(plugin_dir)

local failures, passes = 0, 0
local function test(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passes = passes + 1
    io.stdout:write("ok   " .. name .. "\n")
  else
    failures = failures + 1
    io.stdout:write("FAIL " .. name .. ": " .. tostring(err) .. "\n")
  end
end
local function eq(a, b, what)
  if not vim.deep_equal(a, b) then
    error((what or "value") .. ": expected " .. vim.inspect(b) .. ", got " .. vim.inspect(a), 2)
  end
end

local syncscope = require("syncscope")

test("normalize_settings unwraps { syncscope = ... } and stringifies defines", function()
  local s = syncscope.normalize_settings({ syncscope = { blockDim = { 256 }, defines = { TILE = 16, DBG = true } } })
  eq(s.blockDim, { 256 })
  eq(s.defines, { TILE = "16", DBG = "1" })
end)

test("empty settings / defines encode as JSON objects", function()
  eq(vim.json.encode(syncscope.normalize_settings({})), "{}")
  eq(vim.json.encode(syncscope.normalize_settings({ defines = {} })), '{"defines":{}}')
end)

local exited = {}
test("setup() creates commands and registers the cuda filetype", function()
  syncscope.setup({
    cmd = { "true", "lsp" },
    settings = { blockDim = { 128 }, warpSync = true },
    on_exit = function(code)
      table.insert(exited, code)
    end,
  })
  for _, c in ipairs({ "SyncscopeVerify", "SyncscopeRestart", "SyncscopeStats" }) do
    eq(vim.fn.exists(":" .. c), 2, ":" .. c)
  end
  for _, f in ipairs({ "a.cu", "b.cuh" }) do
    vim.cmd("edit " .. vim.fn.fnameescape(workdir .. "/" .. f))
    eq(vim.bo.filetype, "cuda", "filetype of " .. f)
  end
end)

test("client_config carries settings as init_options and settings.syncscope", function()
  local c = syncscope.client_config(workdir)
  eq(c.name, "syncscope")
  eq(c.cmd, { "true", "lsp" })
  eq(c.root_dir, workdir)
  eq(c.init_options.blockDim, { 128 })
  eq(c.settings, { syncscope = c.init_options })
  assert(type(c.handlers["syncscope/status"]) == "function", "status handler")
end)

test("a client is started for cuda buffers and its exit is observed", function()
  assert(vim.wait(5000, function()
    return #exited > 0
  end, 20), "the dummy server was not started (no on_exit)")
  eq(exited[1], 0, "exit code")
end)

test("root detection prefers syncscope.toml", function()
  vim.fn.mkdir(workdir .. "/proj/src", "p")
  vim.fn.writefile({ "block-dim = [256]" }, workdir .. "/proj/syncscope.toml")
  vim.cmd("edit " .. vim.fn.fnameescape(workdir .. "/proj/src/k.cu"))
  local seen
  local orig = vim.lsp.start or vim.lsp.start_client
  local function spy(config)
    seen = config.root_dir
    return orig(config)
  end
  if vim.lsp.start then
    vim.lsp.start = spy
  else
    vim.lsp.start_client = spy
  end
  syncscope.attach(0)
  if vim.lsp.start then
    vim.lsp.start = orig
  else
    vim.lsp.start_client = orig
  end
  eq(seen, vim.fn.resolve(workdir .. "/proj"), "root_dir")
end)

test("syncscope/status notifications feed status()", function()
  local buf = vim.api.nvim_get_current_buf()
  local handler = syncscope.client_config(workdir).handlers["syncscope/status"]
  local uri = vim.uri_from_bufnr(buf)
  handler(nil, { uri = uri, version = 2, verdict = "racy", kernels = {} }, {})
  eq(syncscope.status(buf), "syncscope: racy")
  handler(nil, { uri = uri, version = 1, verdict = "verified", kernels = {} }, {})
  eq(syncscope.status(buf), "syncscope: racy", "stale version ignored")
  handler(nil, { uri = uri, version = 3, verdict = "verified", kernels = {} }, {})
  eq(syncscope.status(buf), "syncscope: verified")
end)

test("a missing server command is reported, not fatal", function()
  syncscope.setup({ cmd = { "/nonexistent/syncscope", "lsp" } })
  eq(syncscope.attach(0), nil)
end)

io.stdout:write(("nvim-smoke: %d passed, %d failed\n"):format(passes, failures))
vim.cmd(failures == 0 and "cquit 0" or "cquit 1")
