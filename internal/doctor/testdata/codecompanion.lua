-- Runs a setup call doctor printed for codecompanion.nvim, with stand-ins
-- for the three modules it requires, and prints, one "key=value" a line,
-- what codecompanion v19.22 reads from it: the chat's adapter
-- (interactions.chat.adapter), the ACP adapters (adapters.acp), and of the
-- chat's adapter, resolved as codecompanion resolves it (the function
-- called), the preset it extends, its command and its auth_method; for an
-- adapter of its own, the members codecompanion's documentation gives one.
local setup_args
package.preload["codecompanion"] = function()
  return { setup = function(args) setup_args = args end }
end
package.preload["codecompanion.adapters"] = function()
  return { extend = function(name, opts) return { extends = name, opts = opts } end }
end
package.preload["codecompanion.adapters.acp.helpers"] = function()
  return { form_messages = function(self, messages, capabilities) return { "formed" } end }
end

assert(loadfile(arg[1]))()
assert(setup_args, "setup was not called")
local chat = setup_args.interactions.chat.adapter
print("chat=" .. chat)
for name, v in pairs(setup_args.adapters.acp) do
  print("acp." .. name .. "=" .. type(v))
end
local adapter = setup_args.adapters.acp[chat]()
if adapter.extends then
  print("extends=" .. adapter.extends)
  adapter = adapter.opts
else
  print("name=" .. adapter.name)
  print("type=" .. adapter.type)
  print("formatted_name=" .. adapter.formatted_name)
  print("roles=" .. adapter.roles.llm .. "," .. adapter.roles.user)
  local p = adapter.parameters
  print("parameters=" .. p.protocolVersion .. "," .. tostring(p.clientCapabilities.fs.readTextFile) ..
    "," .. tostring(p.clientCapabilities.fs.writeTextFile) .. "," .. p.clientInfo.name)
  print("setup=" .. tostring(adapter.handlers.setup(adapter)))
  print("form_messages=" .. adapter.handlers.form_messages(adapter, {}, {})[1])
  print("on_exit=" .. type(adapter.handlers.on_exit))
  print("auth handler=" .. type(adapter.handlers.auth))
end
for _, arg in ipairs(adapter.commands.default) do
  print("command=" .. arg)
end
print("auth_method=" .. tostring(adapter.defaults and adapter.defaults.auth_method))
