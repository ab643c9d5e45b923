-- init.lua for `nvim --headless -u chat.lua`: codecompanion.nvim itself, from
-- the checkouts $CODECOMPANION_DIR and $PLENARY_DIR, with the setup call in
-- $SNIPPET (doctor's), as a user runs it: :CodeCompanionChat opens a chat,
-- which connects to the agent as it opens; after the connection has had
-- $CONNECT_WAIT seconds, $PROMPT is typed under the user's header and sent
-- with the chat's own send key; when a permission prompt appears, the
-- chat's own Accept key is pressed in the window that shows it (the chat,
-- or codecompanion's diff view); when the chat is done (or after $WAIT
-- seconds), and $SETTLE milliseconds later (updates that come after the
-- turn), the chat buffer is printed, with the virtual text codecompanion
-- draws inline (a tool call's status icon) where it draws it.
--
-- Prints on stderr: "notify: <text>" for each notification (what a user sees
-- of an error); once the connection has had its time (or failed, saying
-- so), "session=<id>" or "session=nil" and "env NAME=value" for each
-- variable the adapter's env hands the agent on top of Neovim's; "approval:
-- <n>" for each prompt answered; "edited: <path>" for each file codecompanion
-- adds to the files the agent edited; "done" or "timeout"; then the buffer
-- between "=== buffer" and "=== end".
-- Exits 0; any error in this script exits non-zero.
local function say(s)
  io.stderr:write(s .. "\n")
end

local notified = false -- an error was notified

local function fail(err)
  say("error: " .. tostring(err))
  vim.cmd("cq")
end

local ok, err = xpcall(function()
  vim.opt.rtp:prepend(os.getenv("PLENARY_DIR"))
  vim.opt.rtp:prepend(os.getenv("CODECOMPANION_DIR"))
  vim.opt.swapfile = false
  vim.notify = function(msg, level)
    notified = notified or level == vim.log.levels.ERROR
    say("notify: " .. tostring(msg))
  end
  dofile(os.getenv("SNIPPET"))
end, debug.traceback)
if not ok then
  fail(err)
end

local wait = tonumber(os.getenv("WAIT") or "120")
local connect_wait = tonumber(os.getenv("CONNECT_WAIT") or "30")
local settle = tonumber(os.getenv("SETTLE") or "1500")
local chat
local approvals = 0
local done

-- The buffer as it is drawn: each line's text with the inline virtual
-- text of every namespace spliced in at its column.
local function drawn(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local inline = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
      local row, col, d = m[2], m[3], m[4]
      if d.virt_text and d.virt_text_pos == "inline" then
        local text = ""
        for _, chunk in ipairs(d.virt_text) do
          text = text .. chunk[1]
        end
        inline[row] = inline[row] or {}
        table.insert(inline[row], { col = col, text = text })
      end
    end
  end
  for row, marks in pairs(inline) do
    table.sort(marks, function(a, b)
      return a.col > b.col
    end)
    local line = lines[row + 1] or ""
    for _, m in ipairs(marks) do
      line = line:sub(1, m.col) .. m.text .. line:sub(m.col + 1)
    end
    lines[row + 1] = line
  end
  return table.concat(lines, "\n")
end

local function finish(status)
  if done then
    return
  end
  done = status
  say(status)
  vim.defer_fn(function()
    xpcall(function()
      say("=== buffer")
      say(drawn(chat.bufnr))
      say("=== end")
    end, function(e)
      say("error: " .. debug.traceback(e))
    end)
    vim.cmd("qa!")
  end, settle)
end

-- The Accept key of codecompanion's shared keymaps, pressed in the window
-- the prompt is in: the diff view, when codecompanion opened it, else the
-- chat.
local function accept()
  local key = require("codecompanion.interactions.chat.tools.labels").keymaps().accept
  approvals = approvals + 1
  say("approval: " .. approvals)
  vim.api.nvim_feedkeys(vim.keycode(key), "mx", false)
end

vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionToolApprovalRequested",
  callback = function()
    -- After the prompt (and any diff view) is drawn.
    vim.defer_fn(function()
      xpcall(accept, fail)
    end, 200)
  end,
})
vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionFileEdited",
  callback = function(args)
    say("edited: " .. tostring(args.data and args.data.path))
  end,
})
vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionChatDone",
  callback = function()
    finish("done")
  end,
})

local function send()
  local conn = chat.acp_connection
  say("session=" .. tostring(conn and conn.session_id))
  local env = conn and conn.adapter_modified and conn.adapter_modified.env_replaced or {}
  local names = vim.tbl_keys(env)
  table.sort(names)
  for _, name in ipairs(names) do
    say("env " .. name .. "=" .. tostring(env[name]))
  end
  vim.api.nvim_set_current_win(chat.ui.winnr)
  local last = vim.api.nvim_buf_line_count(chat.bufnr)
  vim.api.nvim_buf_set_lines(chat.bufnr, last, last, false, { os.getenv("PROMPT") })
  vim.api.nvim_win_set_cursor(chat.ui.winnr, { last + 1, 0 })
  local key = require("codecompanion.config").interactions.chat.keymaps.send.modes.n
  vim.api.nvim_feedkeys(vim.keycode(type(key) == "table" and key[1] or key), "mx", false)
  vim.defer_fn(function()
    finish("timeout")
  end, wait * 1000)
end

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    xpcall(function()
      vim.cmd("CodeCompanionChat")
      chat = require("codecompanion").last_chat()
      assert(chat, "no chat opened")
      local waited = 0
      local function poll()
        local conn = chat.acp_connection
        if (conn and conn.session_id) or notified or waited >= connect_wait * 1000 then
          return xpcall(send, fail)
        end
        waited = waited + 100
        vim.defer_fn(poll, 100)
      end
      poll()
    end, fail)
  end,
})
