-- What codecompanion.nvim v19.22 uses of Neovim 0.8–0.11 that an older
-- Neovim (Debian 12 has 0.7.2) lacks, for the parts its ACP connection
-- runs: each stand-in is defined only where Neovim has no such thing, so
-- on Neovim 0.11 this file changes nothing.
vim.uv = vim.uv or vim.loop
vim.islist = vim.islist or vim.tbl_islist
vim.fs = vim.fs or {}
vim.fs.joinpath = vim.fs.joinpath or function(...)
  return (table.concat({ ... }, "/"):gsub("//+", "/"))
end
vim.fs.normalize = vim.fs.normalize or function(p)
  return (vim.fn.expand(p):gsub("(.)/$", "%1"))
end

-- vim.system (0.10): spawn with pipes, inheriting the environment with
-- opts.env on top; the returned object writes to stdin and kills.
if not vim.system then
  vim.system = function(cmd, opts, on_exit)
    local uv = vim.loop
    local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
    local env = vim.fn.environ()
    for k, v in pairs(opts.env or {}) do
      env[k] = tostring(v)
    end
    local envlist = {}
    for k, v in pairs(env) do
      table.insert(envlist, k .. "=" .. v)
    end
    local handle, pid = uv.spawn(cmd[1], {
      args = vim.list_slice(cmd, 2),
      stdio = { stdin, stdout, stderr },
      cwd = opts.cwd,
      env = envlist,
    }, function(code, signal)
      if on_exit then
        on_exit({ code = code, signal = signal })
      end
    end)
    assert(handle, "spawn " .. cmd[1] .. ": " .. tostring(pid))
    stdout:read_start(function(err, data)
      if opts.stdout then
        opts.stdout(err, data)
      end
    end)
    stderr:read_start(function(err, data)
      if opts.stderr then
        opts.stderr(err, data)
      end
    end)
    return {
      pid = pid,
      write = function(_, data)
        if data then
          stdin:write(data)
        else
          stdin:close()
        end
      end,
      kill = function(_, sig)
        handle:kill(sig)
      end,
    }
  end
end

-- vim.validate(name, value, type, optional), the 0.11 form.
if vim.fn.has("nvim-0.11") == 0 then
  local validate = vim.validate
  vim.validate = function(name, ...)
    if type(name) == "string" then
      local value, t, optional = ...
      return validate({ [name] = { value, t, optional } })
    end
    return validate(name, ...)
  end
end

-- nvim_exec_autocmds takes "data" from 0.8 on; codecompanion's events carry it.
if vim.fn.has("nvim-0.8") == 0 then
  local exec_autocmds = vim.api.nvim_exec_autocmds
  vim.api.nvim_exec_autocmds = function(event, opts)
    opts = vim.deepcopy(opts or {})
    opts.data = nil
    return exec_autocmds(event, opts)
  end
end
