-- End-to-end test of the syncscope Neovim plugin against a real server,
-- through Neovim's own LSP client. Run by e2e.sh, which sets:
--   SYNCSCOPE_E2E_PLUGIN  editors/nvim (added to 'runtimepath')
--   SYNCSCOPE_E2E_BIN     the syncscope executable (started as `<bin> lsp`)
--   SYNCSCOPE_E2E_FILE    a racy kernel (a copy; it gets edited)
--   SYNCSCOPE_E2E_TIMEOUT_MS  per-step timeout (default 30000)
--   SYNCSCOPE_E2E_MODE    "setup" (default): require("syncscope").setup();
--                         "lsp-config" (Neovim 0.11+): vim.lsp.config +
--                         vim.lsp.enable with the plugin's lsp/syncscope.lua
-- Covers every user command (:SyncscopeVerify, :SyncscopeStats,
-- :SyncscopeCompare, :SyncscopeRestart) and :checkhealth syncscope.
-- Exits 0 on success, 1 on failure (with a line starting "nvim-e2e: FAIL:").

local timeout = tonumber(os.getenv("SYNCSCOPE_E2E_TIMEOUT_MS") or "") or 30000
local plugin_dir = assert(os.getenv("SYNCSCOPE_E2E_PLUGIN"), "SYNCSCOPE_E2E_PLUGIN not set")
local bin = assert(os.getenv("SYNCSCOPE_E2E_BIN"), "SYNCSCOPE_E2E_BIN not set")
local file = assert(os.getenv("SYNCSCOPE_E2E_FILE"), "SYNCSCOPE_E2E_FILE not set")
local mode = os.getenv("SYNCSCOPE_E2E_MODE") or "setup"

local function log(msg)
  io.stdout:write("nvim-e2e: " .. msg .. "\n")
  io.stdout:flush()
end

local Failure = {}

local function fail(msg)
  error(setmetatable({ msg = msg }, Failure), 0)
end

local function check(cond, msg)
  if not cond then
    fail(msg)
  end
end

local function short(v)
  local s = vim.inspect(v, { newline = " ", indent = "" })
  if #s > 600 then
    s = s:sub(1, 600) .. "…"
  end
  return s
end

-- Raw LSP diagnostics, as published, for our file.
local publishes = {}
local statuses = {}
local exits = {}
local target_fname = vim.fn.resolve(vim.fn.fnamemodify(file, ":p"))

local function is_target(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  return ok and vim.fn.resolve(fname) == target_fname
end

local function record_publish(err, result, ctx, config)
  if result and is_target(result.uri) then
    table.insert(publishes, { version = result.version, diagnostics = result.diagnostics or {} })
  end
  return vim.lsp.handlers["textDocument/publishDiagnostics"](err, result, ctx, config)
end

local function last_publish()
  return publishes[#publishes]
end

local function races(publish)
  local out = {}
  for _, d in ipairs(publish and publish.diagnostics or {}) do
    if d.code == "data-race" then
      table.insert(out, d)
    end
  end
  return out
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function lsp_version(bufnr)
  local versions = vim.lsp.util.buf_versions
  local v = versions and versions[bufnr]
  if type(v) == "number" then
    return v
  end
  return vim.api.nvim_buf_get_changedtick(bufnr)
end

local function run()
  vim.opt.runtimepath:prepend(plugin_dir)
  log("neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch))
  local syncscope = require("syncscope")
  local function on_exit(code, signal)
    table.insert(exits, ("exit code %s, signal %s"):format(tostring(code), tostring(signal)))
  end
  vim.api.nvim_create_autocmd("User", {
    pattern = "SyncscopeStatus",
    callback = function()
      for uri, status in pairs(syncscope.statuses) do
        if is_target(uri) and statuses[#statuses] ~= status then
          table.insert(statuses, status)
        end
      end
    end,
  })
  log("mode: " .. mode)
  if mode == "lsp-config" then
    check(vim.fn.has("nvim-0.11") == 1, "mode lsp-config needs Neovim 0.11+")
    vim.cmd("filetype on")
    -- Only what the user would write: the command; filetypes, root
    -- markers and the status handler come from lsp/syncscope.lua.
    vim.lsp.config("syncscope", {
      cmd = { bin, "lsp" },
      handlers = { ["textDocument/publishDiagnostics"] = record_publish },
      on_exit = on_exit,
    })
    vim.lsp.enable("syncscope")
  else
    syncscope.setup({
      cmd = { bin, "lsp" },
      settings = {},
      filetypes = { "cuda" },
      handlers = { ["textDocument/publishDiagnostics"] = record_publish },
      on_exit = on_exit,
    })
    check(vim.fn.exists(":SyncscopeVerify") == 2, ":SyncscopeVerify was not created by setup()")
  end

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == "cuda", "filetype of " .. file .. " is '" .. vim.bo[bufnr].filetype .. "', expected 'cuda'")

  -- 1. The client starts and attaches.
  local client
  local attached = vim.wait(timeout, function()
    local clients = syncscope.get_clients(bufnr)
    client = clients[1]
    return client ~= nil and client.initialized
  end, 50)
  check(
    attached,
    ("no initialized syncscope client attached to the buffer within %d ms (is `%s lsp` a working server?)%s"):format(
      timeout,
      bin,
      #exits > 0 and ("; the server process exited: " .. table.concat(exits, "; ")) or ""
    )
  )
  log("client attached (id " .. client.id .. ")")

  -- 2. A data-race diagnostic arrives.
  local got_race = vim.wait(timeout, function()
    return #races(last_publish()) > 0
  end, 50)
  check(
    got_race,
    ("no data-race diagnostic within %d ms; %d publishDiagnostics received, last: %s"):format(
      timeout,
      #publishes,
      short(last_publish())
    )
  )
  local race_publish = last_publish()
  local race = races(race_publish)[1]
  log(("data-race diagnostic at %d:%d: %s"):format(race.range.start.line + 1, race.range.start.character + 1, race.message))

  -- 3. Code actions at the diagnostic's range; pick the `__syncthreads()` fix.
  local uri = vim.uri_from_bufnr(bufnr)
  local function request_actions(diagnostics)
    local params = {
      textDocument = { uri = uri },
      range = race.range,
      context = { diagnostics = diagnostics },
    }
    local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, timeout)
    check(responses ~= nil, "textDocument/codeAction failed: " .. tostring(err))
    local all = {}
    for client_id, resp in pairs(responses) do
      check(resp.error == nil, "textDocument/codeAction error: " .. short(resp.error))
      for _, action in ipairs(resp.result or {}) do
        table.insert(all, { client_id = client_id, action = action })
      end
    end
    return all
  end
  local function pick(all)
    for _, a in ipairs(all) do
      if type(a.action.title) == "string" and a.action.title:find("__syncthreads()", 1, true) then
        return a
      end
    end
    return nil
  end
  local actions = request_actions({ race })
  local chosen = pick(actions)
  if chosen == nil then
    actions = request_actions(races(race_publish))
    chosen = pick(actions)
  end
  local titles = {}
  for _, a in ipairs(actions) do
    table.insert(titles, tostring(a.action.title))
  end
  check(chosen ~= nil, "no code action whose title contains `__syncthreads()`; got: " .. short(titles))
  log("code action: " .. chosen.action.title)

  -- 4. Apply it.
  local action_client = vim.lsp.get_client_by_id(chosen.client_id)
  local action = chosen.action
  if action.edit == nil and type(action.command) ~= "string" and action.command == nil then
    local resolved = vim.lsp.buf_request_sync(bufnr, "codeAction/resolve", action, timeout)
    for _, resp in pairs(resolved or {}) do
      if resp.result then
        action = resp.result
      end
    end
  end
  local seq_before = #publishes
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, action_client.offset_encoding)
  end
  local command = type(action.command) == "table" and action.command
    or (type(action.command) == "string" and action)
    or nil
  if command then
    local r = vim.lsp.buf_request_sync(bufnr, "workspace/executeCommand", {
      command = command.command,
      arguments = command.arguments,
    }, timeout)
    check(r ~= nil, "workspace/executeCommand " .. command.command .. " failed")
  end
  check(action.edit ~= nil or command ~= nil, "the chosen code action has neither an edit nor a command: " .. short(action))

  local text = buffer_text(bufnr)
  check(text:find("__syncthreads();", 1, true) ~= nil, "buffer does not contain `__syncthreads();` after the fix:\n" .. text)
  log("edit applied; buffer now has __syncthreads();")

  -- 5. New diagnostics for the new version: no data race left.
  local function settled()
    local p = last_publish()
    if #publishes <= seq_before or p == nil then
      return false
    end
    if type(p.version) == "number" and p.version < lsp_version(bufnr) then
      return false
    end
    return #races(p) == 0
  end
  local cleared = vim.wait(timeout, settled, 50)
  check(
    cleared,
    ("data-race diagnostic still present %d ms after the fix (buffer version %d); last publish: %s"):format(
      timeout,
      lsp_version(bufnr),
      short(last_publish())
    )
  )
  -- Guard against a transient empty publish while re-analysing.
  vim.wait(1000, function()
    return false
  end, 50)
  check(#races(last_publish()) == 0, "data-race diagnostic came back after the fix: " .. short(last_publish()))
  log(("no data-race diagnostics for version %s"):format(tostring(last_publish().version)))

  -- The server's own verdict, when it sends syncscope/status.
  if #statuses > 0 then
    local final
    vim.wait(math.min(timeout, 10000), function()
      local s = statuses[#statuses]
      if s and s.verdict ~= "analysing" and (type(s.version) ~= "number" or s.version >= lsp_version(bufnr)) then
        final = s
        return true
      end
      return false
    end, 50)
    if final then
      check(final.verdict ~= "racy", "syncscope/status still says racy after the fix: " .. short(final))
      log("syncscope/status verdict: " .. tostring(final.verdict))
    else
      log("warning: no final syncscope/status for the new version (last: " .. short(statuses[#statuses]) .. ")")
    end
  end

  -- 6. Every user command, as the user runs it. Each command calls the
  -- module's function, which the test wraps to see the server's answer.
  for _, name in ipairs({ "SyncscopeVerify", "SyncscopeStats", "SyncscopeRestart", "SyncscopeCompare" }) do
    check(vim.fn.exists(":" .. name) == 2, ":" .. name .. " does not exist")
  end
  local notes = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(notes, { msg = tostring(msg), level = level })
  end
  local function answered(fn_name)
    local done, answer_err, answer = false, nil, nil
    local original = syncscope[fn_name]
    syncscope[fn_name] = function(b, on_done)
      return original(b, function(e, r)
        done, answer_err, answer = true, e, r
        if on_done then
          on_done(e, r)
        end
      end)
    end
    return function()
      local finished = vim.wait(timeout, function()
        return done
      end, 50)
      syncscope[fn_name] = original
      return finished, answer_err, answer
    end
  end

  local verify_answer = answered("verify")
  vim.cmd("SyncscopeVerify")
  local done, cmd_err = verify_answer()
  check(done, ":SyncscopeVerify: syncscope.verifyFile did not answer within " .. timeout .. " ms")
  check(cmd_err == nil, ":SyncscopeVerify: syncscope.verifyFile returned an error: " .. short(cmd_err))
  log(":SyncscopeVerify ok")

  local stats_answer = answered("stats")
  vim.cmd("SyncscopeStats")
  local stats
  done, cmd_err, stats = stats_answer()
  check(done, ":SyncscopeStats: syncscope/stats did not answer within " .. timeout .. " ms")
  check(cmd_err == nil, ":SyncscopeStats: syncscope/stats returned an error: " .. short(cmd_err))
  check(type(stats) == "table" and type(stats.queriesRun) == "number", ":SyncscopeStats: unexpected result " .. short(stats))
  local shown = false
  for _, n in ipairs(notes) do
    shown = shown or n.msg:find("queries run " .. stats.queriesRun, 1, true) ~= nil
  end
  check(shown, ":SyncscopeStats printed no statistics; messages: " .. short(notes))
  log((":SyncscopeStats ok (queries run %d, kernels analysed %s)"):format(stats.queriesRun, tostring(stats.kernelsAnalysed)))

  -- :SyncscopeCompare! FILE:KERNEL compares the buffer's kernel with a
  -- version on disk, as real arithmetic (the bang: --assoc): the server
  -- answers with a verdict, and it is shown.
  local compared, compare_err, compare_result = false, nil, nil
  local original_compare = syncscope.compare
  syncscope.compare = function(b, kernel, other, on_done, how)
    return original_compare(b, kernel, other, function(e, r)
      compared, compare_err, compare_result = true, e, r
      if on_done then
        on_done(e, r)
      end
    end, how)
  end
  vim.cmd("SyncscopeCompare! " .. vim.fn.fnameescape(file) .. ":shift")
  vim.wait(timeout, function()
    return compared
  end, 50)
  syncscope.compare = original_compare
  check(compared, ":SyncscopeCompare: syncscope.compareWith did not answer within " .. timeout .. " ms")
  check(compare_err == nil, ":SyncscopeCompare: syncscope.compareWith returned an error: " .. short(compare_err))
  check(type(compare_result) == "table" and type(compare_result.verdict) == "string", ":SyncscopeCompare: unexpected result " .. short(compare_result))
  local compare_shown = false
  for _, n in ipairs(notes) do
    compare_shown = compare_shown or n.msg:find("shift and ", 1, true) ~= nil
  end
  check(compare_shown, ":SyncscopeCompare printed no verdict; messages: " .. short(notes))
  local assumed = false
  for _, n in ipairs(compare_result.notes or {}) do
    assumed = assumed or tostring(n):find("--assoc", 1, true) ~= nil
  end
  check(assumed, ":SyncscopeCompare!: the answer does not say --assoc was assumed: " .. short(compare_result))
  log(":SyncscopeCompare ok (" .. compare_result.verdict .. ")")

  local old_id = client.id
  local before_restart = #publishes
  vim.cmd("SyncscopeRestart")
  local new_client
  local restarted = vim.wait(timeout, function()
    new_client = syncscope.get_clients(bufnr)[1]
    return new_client ~= nil and new_client.id ~= old_id and new_client.initialized and #publishes > before_restart
  end, 50)
  check(
    restarted,
    (":SyncscopeRestart: no new initialized client with fresh diagnostics within %d ms (old client %d, now %s)"):format(
      timeout,
      old_id,
      short(new_client and new_client.id)
    )
  )
  local old = vim.lsp.get_client_by_id(old_id)
  local old_stopped = old == nil or (vim.fn.has("nvim-0.11") == 1 and old:is_stopped()) or (vim.fn.has("nvim-0.11") == 0 and old.is_stopped())
  check(old_stopped, ":SyncscopeRestart left the old client running")
  check(#races(last_publish()) == 0, "after :SyncscopeRestart the fixed file has a race again: " .. short(last_publish()))
  log((":SyncscopeRestart ok (client %d replaced by %d)"):format(old_id, new_client.id))
  vim.notify = notify
  for _, n in ipairs(notes) do
    check(n.level ~= vim.log.levels.ERROR, "a command reported an error: " .. n.msg)
  end

  -- 7. :checkhealth syncscope reports the binary, its version and the
  -- configuration.
  vim.cmd("checkhealth syncscope")
  local report = buffer_text(vim.api.nvim_get_current_buf())
  for _, want in ipairs({
    "binary: " .. vim.fn.exepath(bin),
    "version: syncscope ",
    "settings sent to the server",
    "client " .. new_client.id .. " running",
    mode == "lsp-config" and "configured by vim.lsp.config('syncscope')" or "configured by require('syncscope').setup()",
  }) do
    check(report:find(want, 1, true) ~= nil, ":checkhealth syncscope does not say " .. want .. ":\n" .. report)
  end
  check(report:find("ERROR", 1, true) == nil, ":checkhealth syncscope reports an error:\n" .. report)
  log(":checkhealth syncscope ok")
end

local ok, err = xpcall(run, function(e)
  if getmetatable(e) == Failure then
    return e
  end
  return { msg = "Lua error: " .. tostring(e) .. "\n" .. debug.traceback() }
end)

if ok then
  log("PASS")
else
  local msg = err.msg
  if #exits > 0 and not msg:find("server process exited", 1, true) then
    msg = msg .. "\n  (the server process exited: " .. table.concat(exits, "; ") .. ")"
  end
  log("FAIL: " .. msg)
end

-- Shut the server down politely before leaving.
local clients = {}
pcall(function()
  clients = require("syncscope").get_clients(nil)
end)
local new_api = vim.fn.has("nvim-0.11") == 1
for _, c in ipairs(clients) do
  pcall(function()
    if new_api then
      c:stop()
    else
      c.stop()
    end
  end)
end
vim.wait(3000, function()
  for _, c in ipairs(clients) do
    local stopped = (new_api and c:is_stopped()) or (not new_api and c.is_stopped())
    if not stopped then
      return false
    end
  end
  return true
end, 50)

vim.cmd((ok and "cquit 0") or "cquit 1")
