-- Prints what codecompanion.nvim's chat buffer shows for each tool call of
-- the session updates in $UPDATES (one tool_call or tool_call_update a
-- line), using its own formatter (interactions/chat/acp/formatters.lua,
-- from the checkout $CODECOMPANION_DIR): updates merged per toolCallId as
-- its ACP handler merges them (each member the update carries, null
-- ignored), then the call's line, plain and with the adapter's
-- verbose_output, and whether a completed call of kind edit fires its
-- FileEdited event. One line a call: id, TAB, line, TAB, verbose line,
-- TAB, edited; a newline in a line (a title of several lines is kept
-- whole) written as \n.
-- Any error ends Neovim with a non-zero status (headless, it would wait).
local ok, err = xpcall(function()
  local dir = os.getenv("CODECOMPANION_DIR")
  package.path = dir .. "/lua/?.lua;" .. dir .. "/lua/?/init.lua;" .. package.path
  dofile(os.getenv("SHIMS"))
  local formatter = require("codecompanion.interactions.chat.acp.formatters")

  local calls, order = {}, {}
  for line in io.lines(os.getenv("UPDATES")) do
    local update = vim.json.decode(line)
    local id = update.toolCallId
    if not calls[id] then
      calls[id] = {}
      table.insert(order, id)
    end
    for k, v in pairs(update) do
      if v ~= vim.NIL then
        calls[id][k] = v
      end
    end
  end
  local out = {}
  for _, id in ipairs(order) do
    local call = calls[id]
    -- As its handler calls it: an error shows as this text.
    local function message(opts)
      local ok, text = pcall(formatter.tool_message, call, { opts = opts })
      return ok and text or "[Error formatting tool output]"
    end
    local plain, verbose = message({}), message({ verbose_output = true })
    local edited = call.status == "completed" and call.kind == "edit"
    local function one(s) return (s:gsub("\\", "\\\\"):gsub("\n", "\\n")) end
    table.insert(out, table.concat({ id, one(plain), one(verbose), tostring(edited) }, "\t"))
  end
  io.stderr:write(table.concat(out, "\n") .. "\n")
  vim.cmd("qa!")
end, debug.traceback)
if not ok then
  io.stderr:write(tostring(err) .. "\n")
  vim.cmd("cq")
end
