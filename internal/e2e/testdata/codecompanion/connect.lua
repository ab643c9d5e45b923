-- Runs the codecompanion setup call in $SNIPPET through codecompanion.nvim's
-- own code, from the checkout $CODECOMPANION_DIR: its config (setup's config
-- part; the rest, commands and UI, is not needed), the chat's adapter
-- resolved as a chat resolves it, and its ACP connection up to a session
-- (initialize, authenticate with the adapter's auth_method, session/new).
-- Prints what it got on stderr; exits 0 only with a session.
-- Any error ends Neovim with a non-zero status (headless, it would wait).
local ok, err = xpcall(function()
  local dir = os.getenv("CODECOMPANION_DIR")
  package.path = dir .. "/lua/?.lua;" .. dir .. "/lua/?/init.lua;" .. package.path
  dofile(os.getenv("SHIMS"))
  -- plenary.nvim, a dependency, is not used by the connection.
  package.preload["plenary.async"] = function()
    return setmetatable({}, { __index = function() return function() end end })
  end
  package.loaded["codecompanion"] = {
    setup = function(args) require("codecompanion.config").setup(args) end,
  }

  local function say(s) io.stderr:write(s .. "\n") end
  local ok, err = pcall(dofile, os.getenv("SNIPPET"))
  if not ok then
    say("setup: " .. tostring(err))
    vim.cmd("cq")
  end
  local config = require("codecompanion.config")
  local adapter = require("codecompanion.adapters").resolve(config.interactions.chat.adapter)
  say("adapter=" .. adapter.name)
  say("command=" .. table.concat(adapter.commands.selected, " "))
  say("auth_method=" .. tostring(adapter.defaults.auth_method))
  local conn = require("codecompanion.acp").new({ adapter = adapter })
  local connected, why = pcall(function() return conn:connect_and_initialize() end)
  say("connected=" .. tostring(connected and why ~= nil) .. (connected and "" or " (" .. tostring(why) .. ")"))
  say("authenticated=" .. tostring(conn._authenticated))
  say("session=" .. tostring(conn.session_id))
  pcall(function() conn:disconnect() end)
  vim.cmd(conn.session_id and "qa!" or "cq")
end, debug.traceback)
if not ok then
  io.stderr:write(tostring(err) .. "\n")
  vim.cmd("cq")
end
