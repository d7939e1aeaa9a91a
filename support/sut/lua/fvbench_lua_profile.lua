-- fvbench_lua_profile: LuaJIT sampling profiles of every nginx worker, taken
-- between a start and a stop the suite sends to the status listener
-- (support/sut/lua_profile.h is the contract; support/sut/nginx_conf.h how
-- it is wired into edge's configuration).
--
-- jit.profile is per Lua VM, i.e. per worker, and its interval timer does not
-- survive fork: each worker runs init_worker(out_dir) from its init_worker
-- phase, which starts an ngx.timer.every(POLL_S) that reads the shared dict
-- `fvbench_profile` and starts or stops this worker's profiler. The HTTP
-- handlers (http_start, http_stop, http_state) only write or read that dict,
-- so whichever worker answers the status socket, every worker follows.
--
-- Dict keys: gen (a number bumped by each start), running (true between a
-- start and its stop), period_ms, done:<gen> (workers that wrote their file
-- for gen), file:<gen>:<pid> (its path), error:<gen>:<pid> (why it could not).
--
-- On stop each worker writes <out_dir>/lua_profile.<pid>.folded (to a
-- .tmp name, then renamed), one line per distinct stack, most samples first:
--   <root frame>;...;<leaf frame>;[<vmstate>] <samples>
-- frames as jit.profile.dumpstack's "pF" format (module:function, the module
-- with its full path, e.g. @/src/fairvisor/rule_engine.lua:evaluate), the
-- vmstate (N compiled, I interpreted, C C code, G GC, J JIT compiler) as the
-- leaf-most frame: a function keeps one width whatever state its samples
-- were in, and the split shows above it. At most MAX_STACKS distinct stacks
-- are kept; the samples of further ones are counted in a `[truncated]` line.
-- A worker that saw a start's stop but never its start writes an empty file,
-- so every worker writes one file per generation.

local M = {}

local DICT = "fvbench_profile"
local POLL_S = 0.1
local MAX_STACKS = 4096
local DEPTH = 100
local FORMAT = "pF;"
local MIN_PERIOD_MS, MAX_PERIOD_MS, DEFAULT_PERIOD_MS = 1, 1000, 10

local profile = require("jit.profile")

local out_dir
local started_gen, written_gen = 0, 0
local running = false
local counts, nstacks, truncated = {}, 0, 0

local function on_sample(thread, samples, vmstate)
  local key = profile.dumpstack(thread, FORMAT, -DEPTH) .. "[" .. vmstate .. "]"
  local n = counts[key]
  if n then
    counts[key] = n + samples
  elseif nstacks < MAX_STACKS then
    counts[key] = samples
    nstacks = nstacks + 1
  else
    truncated = truncated + samples
  end
end

local function start_profiler(period_ms)
  counts, nstacks, truncated = {}, 0, 0
  profile.start("fi" .. period_ms, on_sample)
  running = true
end

local function stop_profiler()
  if running then profile.stop() end
  running = false
end

-- The folded lines, most samples first (ties by stack, for a stable file).
local function folded_lines()
  local lines = {}
  for stack, n in pairs(counts) do
    lines[#lines + 1] = { stack:gsub("[\r\n]", " "), n }
  end
  table.sort(lines, function(a, b)
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] < b[1]
  end)
  if truncated > 0 then lines[#lines + 1] = { "[truncated]", truncated } end
  return lines
end

local function write_file(path)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "w")
  if not f then return nil, err end
  for _, l in ipairs(folded_lines()) do
    f:write(l[1], " ", l[2], "\n")
  end
  local ok, cerr = f:close()
  if not ok then return nil, cerr end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then return nil, rerr end
  return true
end

local function finish(dict, gen)
  stop_profiler()
  local pid = ngx.worker.pid()
  local path = out_dir .. "/lua_profile." .. pid .. ".folded"
  local ok, err = write_file(path)
  if ok then
    dict:set("file:" .. gen .. ":" .. pid, path)
  else
    dict:set("error:" .. gen .. ":" .. pid, "writing " .. path .. ": " .. tostring(err))
    ngx.log(ngx.ERR, "fvbench_lua_profile: writing ", path, ": ", err)
  end
  counts, nstacks, truncated = {}, 0, 0
  written_gen = gen
  dict:incr("done:" .. gen, 1, 0)
end

local function poll(premature)
  local dict = ngx.shared[DICT]
  if premature then
    stop_profiler()
    return
  end
  local gen = dict:get("gen") or 0
  if dict:get("running") then
    if gen > started_gen then
      if running then finish(dict, started_gen) end
      started_gen = gen
      start_profiler(dict:get("period_ms") or DEFAULT_PERIOD_MS)
    end
  elseif gen > written_gen then
    started_gen = gen
    finish(dict, gen)
  end
end

-- From each worker's init_worker phase. Errors are logged, never raised:
-- edge's own init_worker runs after this whatever happens here.
function M.init_worker(dir)
  local dict = ngx.shared[DICT]
  if not dict then
    ngx.log(ngx.ERR, "fvbench_lua_profile: no lua_shared_dict ", DICT)
    return
  end
  out_dir = dir
  started_gen = dict:get("gen") or 0
  written_gen = started_gen
  local ok, err = ngx.timer.every(POLL_S, poll)
  if not ok then ngx.log(ngx.ERR, "fvbench_lua_profile: ngx.timer.every: ", err) end
end

local function reply(status, body)
  ngx.status = status
  ngx.header["Content-Type"] = "text/plain"
  ngx.print(body)
  return ngx.exit(status)
end

local function head(dict)
  return "gen " .. (dict:get("gen") or 0) .. "\nworkers " .. ngx.worker.count() .. "\n"
end

-- GET /fvbench_profile/start?period_ms=N (1..1000, default 10): 200 with
-- `gen <n>` and `workers <n>` lines; 409 while a profile runs; 400 on a bad period.
function M.http_start()
  local dict = ngx.shared[DICT]
  local arg = ngx.var.arg_period_ms
  local period = DEFAULT_PERIOD_MS
  if arg then
    period = tonumber(arg)
    if not period or period ~= math.floor(period) or period < MIN_PERIOD_MS or period > MAX_PERIOD_MS then
      return reply(400, "period_ms must be a whole number from " .. MIN_PERIOD_MS .. " to " .. MAX_PERIOD_MS .. "\n")
    end
  end
  if dict:get("running") then return reply(409, "a profile is running\n" .. head(dict)) end
  dict:set("period_ms", period)
  dict:set("running", true)
  dict:incr("gen", 1, 0)
  return reply(200, head(dict))
end

-- GET /fvbench_profile/stop: 200 with `gen` and `workers`; 409 when none runs.
function M.http_stop()
  local dict = ngx.shared[DICT]
  if not dict:get("running") then return reply(409, "no profile is running\n" .. head(dict)) end
  dict:set("running", false)
  return reply(200, head(dict))
end

-- GET /fvbench_profile/state: the current generation's progress, one fact a line:
--   gen <n> / running <0|1> / workers <n> / done <n> / file <pid> <path>... / error <pid> <message>...
function M.http_state()
  local dict = ngx.shared[DICT]
  local gen = dict:get("gen") or 0
  local out = { head(dict), "running ", dict:get("running") and 1 or 0, "\ndone ", dict:get("done:" .. gen) or 0, "\n" }
  for _, key in ipairs(dict:get_keys(0)) do
    local kind, pid = key:match("^(%a+):" .. gen .. ":(%d+)$")
    if kind == "file" or kind == "error" then
      out[#out + 1] = kind .. " " .. pid .. " " .. tostring(dict:get(key)):gsub("[\r\n]", " ") .. "\n"
    end
  end
  return reply(200, table.concat(out))
end

return M
