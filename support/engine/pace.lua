-- pace.lua: turns wrk's closed loop into an open, paced arrival model and
-- writes one JSON object in done(). Used by support/engine/wrk_engine.cc; parsed by
-- support/engine/wrk_output.cc. Written for wrk 4.x with LuaJIT (Debian's wrk 4.1.0).
--
-- What wrk measures, and what this script adds (read before trusting numbers)
-- ---------------------------------------------------------------------------
-- * wrk is a closed loop: each connection sends one request, waits for the
--   response, then sends the next. With a delay() hook, wrk calls delay() on a
--   connection before every request (src/wrk.c socket_writeable: `c->delayed`
--   is set again in response_complete) and arms a timer of that many
--   MILLISECONDS (aeCreateTimeEvent; the number is truncated to an integer).
-- * This script keeps an absolute per-thread timeline: slot n is at
--   start + n * interval, interval = threads / rate. delay() hands the next slot
--   to the connection that asks and returns the time until it (rounded to the
--   nearest ms; 0 when the slot is already past). Rounding never drifts the
--   rate, because slots are absolute. Arrivals are quantised to wrk's 1 ms
--   timer tick: at 10000 req/s per thread about 10 requests leave per tick.
-- * Latency (wrk's histogram, µs) runs from the moment wrk writes the request
--   (c->start is taken right after request() is called) to the last response
--   byte. A send that leaves LATE (no free connection when its slot came, or
--   the event loop was busy) is therefore NOT visible in latency. It is
--   visible here as send lag = actual send time - slot time, recorded in
--   request(). Coordinated omission is DETECTED through send lag, not
--   corrected: a run with large lag did not offer the target rate, and its
--   latency numbers describe a lighter load than asked for.
-- * Why a send was late. A free connection claims the next slot in delay()
--   and, when the slot is ahead, parks on its timer (n_parked counts
--   them). A slot claimed more than 10 ms after it fell due found no free
--   connection then. If no connection has been parked since before that
--   moment (pool_busy_since <= the slot), every one of the thread's
--   connections was waiting for a response: the SUT's latency held the whole
--   pool (for a moment: a stall, not the mean latency), and the late send
--   counts in send_lag_us.late_10ms_pool_exhausted. Otherwise a connection
--   was parked, or was still parked after the slot fell due, and the event
--   loop ran late: its timers did not fire on time (the engine's CPU or
--   scheduling). After an engine stall the parked connections send only when
--   it ends, so the backlog they then catch up on is the engine's too. (A
--   claim that returns 0 does not park: its connection sends in the same
--   turn of the event loop.)
-- * Send lag matches sends to slots first-in first-out; timers of different
--   connections can fire in a slightly different order than their slots, so a
--   single lag value is exact only to about one timer tick (1 ms). Sends that
--   leave before their slot (timer rounding) count as lag 0; the largest such
--   earliness is reported as send_lag_us.max_early.
-- * wrk itself applies a crude correction before done(): stats_correct() adds
--   synthetic samples to the latency histogram for every sample at least twice
--   `runtime / (requests / connections)` long; percentiles include them.
--   (Their number is not reported: counting the histogram from Lua is
--   quadratic, see done().)
-- * summary.errors.status counts responses with status > 399 only (3xx are not
--   counted). errors.timeout counts responses slower than --timeout (still
--   completed; not in the histogram). connect/read/write are socket errors.
--   Exact non-2xx counting needs response(), which makes wrk parse every
--   header into a Lua table; it is enabled only with FVBENCH_COUNT_RATELIMIT=1.
--
-- Results over time (done()'s field `intervals`)
-- ----------------------------------------------
-- * Counts per interval of FVBENCH_INTERVAL_US (1 s) on the phase's clock:
--   interval 1 starts at the common start (FVBENCH_START_EPOCH_US, without
--   OFFSET, so that several instances' intervals line up), or, unsynchronised,
--   at the process's first setup() (wrk's start, to within a millisecond,
--   before any slot). `start_epoch_us` is that origin on this host's wall
--   clock, `width_us` the width; every series has one count per interval.
--   An event before the origin (a connection up before the common start)
--   counts in interval 1.
-- * scheduled: the slots that fell due in the interval, by slot time, from
--   each thread's schedule in done() (the same slots as the field
--   `scheduled`: the series sums to it exactly, slots cut off at stop
--   left out in their intervals).
-- * sent: paced sends, by the time they left (sums to `sent`).
-- * late_10ms: of those, the sends more than 10 ms behind their slot (sums
--   to send_lag_us.late_10ms).
-- * completed: responses, by the time wrk finished them. wrk keeps its
--   latency histogram in C and response() gets no timing and no connection,
--   so latency per interval is out of reach; but after a response completes
--   (pending back to 0) wrk sets c->delayed and its connection's next
--   socket_writeable calls delay(): each delay() call is one completed
--   response, except each connection's first (wrk gives a thread
--   CONNECTIONS / THREADS connections; FVBENCH_CONNECTIONS unset: none is
--   left out). A request whose connection failed is not answered and calls
--   no delay(); a response completed just before wrk stopped its thread may
--   find no delay() after it, so the series sums to at most `requests`.
--   Within one interval a stall that the SUT then catches up on is not
--   visible in these counts (the backlog completes in the same interval):
--   an interval with no completion while slots fell due is a stall at
--   least as long as the interval.
-- * Cost: each event adds to its interval's count in a table indexed by the
--   interval; the interval's end is compared per event and the index
--   computed only when it is passed (roll_interval), so memory grows with the
--   phase's seconds, not its requests.
--
-- Parameters (environment; wrk's main Lua state, where done() runs, gets no
-- script arguments):
--   FVBENCH_RATE            total target rate, requests/s (> 0), required
--   FVBENCH_THREADS         same as wrk -t; each thread paces RATE/THREADS
--   FVBENCH_CONNECTIONS     same as wrk -c (informational, echoed in the JSON)
--   FVBENCH_KIND            get | decision | post
--   FVBENCH_JWT             Bearer token (optional)
--   FVBENCH_BODY_FILE       request body for `post` (required for post)
--   FVBENCH_OUT             path of the JSON file written in done() (required)
--   FVBENCH_COUNT_RATELIMIT 1 = count statuses and RateLimit headers in response()
--   FVBENCH_TIMEOUT_US      wrk's --timeout in µs (echoed as timeout_us; optional)
--   FVBENCH_DURATION_S      wrk's -d in seconds: each thread's schedule runs for
--                           it (see done(); optional: without it, a thread's
--                           schedule ends at its last delay() or send)
--   FVBENCH_START_EPOCH_US  a common start on the wall clock (µs since the Unix
--                           epoch; several load generators): slot 0
--                           of thread j is at START + OFFSET + j / RATE, so the
--                           threads' slots interleave evenly; each connection
--                           waits for its slot; no slot at or after START +
--                           OFFSET + FVBENCH_DURATION_S is claimed (the schedule
--                           window; a connection then idles until wrk's -d,
--                           which must cover the wait for START). START is on
--                           THIS host's clock (the controller maps it through
--                           the host's measured offset). A thread first up more
--                           than 10 ms after its slot 0 skips the slots due
--                           before then (window.missed_slots): a late start is
--                           never caught up in a burst. Unset: each thread's
--                           slot 0 is its first delay(), as before.
--   FVBENCH_OFFSET_US       this instance's schedule offset after START (µs, >= 0;
--                           shard i of n at total rate R: i / R)
--   FVBENCH_INTERVAL_US     width of the counting intervals (µs, whole, 1000 ..
--                           3600e6; unset: 1 s; the suite passes
--                           FVBENCH_INTERVAL_S, 1 s by default); see
--                           "Results over time"
--   FVBENCH_KEYS            rate-limit keys K (integer 0..100000; unset or 0: none):
--                           K > 0 puts "X-Bench-Key: k<i>" on every request,
--                           i = 0..K-1 taken in turn by each thread, thread j
--                           (0-based, of THREADS) starting at floor(j * K /
--                           THREADS), so the threads interleave and over a
--                           phase each key gets its share (sent / K) within
--                           one request per thread; several instances each
--                           do the same, so every key's offered rate is
--                           RATE / K. get, decision: each key's request is
--                           built once per thread in init(); request() only
--                           indexes it. post: the key's head is built in
--                           init(), and request() concatenates a new string
--                           per request as without keys; LuaJIT interns it,
--                           and that costs more the larger K.
--                           decision: key i comes from the client address
--                           203.0.113.<i % 254 + 1> (K < 254: K addresses).
--                           K = 0: the requests are exactly those without it.
--
-- A bad parameter raises a Lua error inside init(), which wrk does not
-- protect: wrk prints "PANIC: unprotected error in call to Lua API (...)",
-- exits 1 and writes no JSON. The top level of
-- this file only defines functions, so it cannot fail half-way (wrk prints a
-- top-level error and then runs unpaced).

local counting = os.getenv("FVBENCH_COUNT_RATELIMIT") == "1"

-- ---------------------------------------------------------------- per thread
local now_us            -- monotonic clock, µs (float)
local epoch_minus_mono_us  -- wall clock - monotonic clock, µs (setup_clock)
local requests = {}     -- pre-formatted request pool (get, decision)
local n_requests = 0
local next_request = 0
local post_head, post_tail, thread_tag
local post_heads        -- FVBENCH_KEYS > 0 with post: post_head per key (1 = k0)
local n_keys = 0        -- FVBENCH_KEYS
local next_key = 0
local request_post_keyed  -- request() for post with keys (defined below request())
local interval_us       -- slot spacing on this thread's timeline
local start_us          -- slot 0, set by the first delay() call
local n_slots = 0
local q_head, q_tail = 1, 0   -- claimed slot times in fvb_queue, FIFO
local sync_start_us     -- FVBENCH_START_EPOCH_US + OFFSET on the monotonic clock (nil: unsynchronised)
local window_end_us     -- sync_start_us + FVBENCH_DURATION_S: no slot claimed at or after it
-- Why a send was late (header), per claimed slot; not read by done().
local exhausted_at = {}  -- index in fvb_queue -> true: claimed > 10 ms late with no connection parked
local parked_at = {}     -- index in fvb_queue -> true: its connection parked on a timer for it
local n_parked = 0       -- connections parked on a timer for a claimed slot
local pool_busy_since    -- since when no connection was parked (nil: one is parked, or none ever was)

-- Counters read by done() through thread:get (globals on purpose).
fvb_sent = 0
fvb_lag_max = 0
fvb_lag_sum = 0
fvb_late_1ms = 0
fvb_late_10ms = 0
fvb_late_10ms_exhausted = 0  -- of those, sends whose slot found no free connection (see the header)
fvb_early_max = 0
fvb_responses = 0
fvb_non_2xx = 0
fvb_ratelimit = 0
fvb_status = {}   -- status code (as string) -> count, when counting
fvb_thread_rate = 0
fvb_start_us = 0  -- slot 0 of this thread's timeline (0 = never paced)
fvb_last_us = 0   -- the thread's last delay() or send: it was still running then
fvb_queue = {}    -- slots claimed by a connection's delay() and not sent yet
fvb_first_lag_us = 0   -- its first send (slot 0) - slot 0's time, µs (may be < 0: early)
fvb_sync_offset_us = -1  -- synchronised: its slot 0 after the instance's (j / rate), µs; -1: not synchronised
fvb_missed = 0    -- synchronised: slots that fell due before the thread was up, skipped (see delay())
-- Counts per interval (header, "Results over time"): index 1 is the interval
-- that starts at the phase's origin. Filled in by roll_interval(), read by
-- done(); an interval in which this thread saw nothing stays nil (0).
local iv_sent, iv_completed, iv_late = {}, {}, {}
fvb_iv_sent = iv_sent
fvb_iv_completed = iv_completed
fvb_iv_late = iv_late
fvb_origin_us = nil    -- interval 1 starts here (monotonic µs; set in init())
fvb_iv_width_us = 1e6  -- FVBENCH_INTERVAL_US
local iv_index = 0     -- the interval events are counted in now (0: none yet)
local iv_end_us = -math.huge  -- when it ends: the next event at or after it rolls
local firsts_left = 0  -- this thread's connections whose first delay() has not come yet

local function getenv_required(name)
  local v = os.getenv(name)
  if v == nil or v == "" then
    error("pace.lua: environment variable " .. name .. " is required")
  end
  return v
end

local function getenv_number(name)
  local raw = getenv_required(name)
  local v = tonumber(raw)
  if v == nil or v ~= v or v <= 0 or v == math.huge then
    error("pace.lua: " .. name .. "=" .. raw .. " is not a positive number")
  end
  return v
end

local function setup_clock()
  local ffi = require("ffi")
  ffi.cdef [[
    typedef struct { long tv_sec; long tv_nsec; } fvbench_timespec;
    int clock_gettime(int clk_id, fvbench_timespec *tp);
  ]]
  local ts = ffi.new("fvbench_timespec")
  local C = ffi.C
  local CLOCK_REALTIME, CLOCK_MONOTONIC = 0, 1  -- Linux <time.h>
  now_us = function()
    C.clock_gettime(CLOCK_MONOTONIC, ts)
    return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) * 1e-3
  end
  -- wall clock - monotonic clock (µs): converts the common start (wall
  -- clock, shared across processes and hosts) to this process's monotonic
  -- timeline and the window back to wall clock. The wall clock is read
  -- between two monotonic reads; a preemption between them (ms on a busy
  -- host: measured 7 ms early under ctest -j2) would skew the estimate by
  -- half of it, so the tightest of 9 tries is taken.
  local best_gap = nil
  for _ = 1, 9 do
    local m1 = now_us()
    C.clock_gettime(CLOCK_REALTIME, ts)
    local real = tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) * 1e-3
    local m2 = now_us()
    if best_gap == nil or m2 - m1 < best_gap then
      best_gap = m2 - m1
      epoch_minus_mono_us = real - (m1 + m2) / 2
    end
  end
end

local function host_header()
  if wrk.port ~= nil and wrk.port ~= "" then
    return wrk.host .. ":" .. wrk.port
  end
  return wrk.host
end

-- Request line + headers, without the blank line. `extra` is a list of
-- "Name: value" strings, emitted in order.
local function head(method, extra)
  local lines = { method .. " " .. wrk.path .. " HTTP/1.1", "Host: " .. host_header() }
  for _, h in ipairs(extra) do lines[#lines + 1] = h end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- A whole number from the environment variable `name` in lo..hi; `default`
-- when unset or empty; else a Lua error "pace.lua: NAME=<raw> is not <what>".
local function getenv_whole(name, default, lo, hi, what)
  local raw = os.getenv(name) or ""
  if raw == "" then return default end
  local v = tonumber(raw)
  if v == nil or v ~= math.floor(v) or v < lo or v > hi then
    error("pace.lua: " .. name .. "=" .. raw .. " is not " .. what)
  end
  return v
end

-- FVBENCH_KEYS: 0 when unset or empty, else an integer in 0..100000
-- (load_engine.h kMaxBenchKeys).
local function getenv_keys()
  return getenv_whole("FVBENCH_KEYS", 0, 0, 100000, "an integer in 0..100000")
end

-- The key header for key index i (0-based).
local function key_header(i)
  return "X-Bench-Key: k" .. i
end

-- FVBENCH_INTERVAL_US: the width of the counting intervals, µs; 1 s when
-- unset or empty (the suite passes FVBENCH_INTERVAL_S's, 1 s by default).
local function getenv_interval_width()
  return getenv_whole("FVBENCH_INTERVAL_US", 1e6, 1000, 3600e6, "a whole number of µs in 1000..3600000000")
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if f == nil then error("pace.lua: FVBENCH_BODY_FILE: " .. tostring(err)) end
  local body = f:read("*a")
  f:close()
  return body
end

function setup(thread)
  -- Main Lua state: remember every thread for done(), and when the last one
  -- was set up: wrk creates each thread right after its setup() and takes its
  -- start time just after creating the last one (wrk.c main), so this is
  -- wrk's start to within a millisecond, and never after it.
  if now_us == nil then setup_clock() end
  fvb_setup_us = now_us()
  fvb_threads = fvb_threads or {}
  fvb_threads[#fvb_threads + 1] = thread
  thread:set("fvb_thread_index", #fvb_threads)
  -- Unsynchronised, the intervals start at the first setup(): one origin
  -- for every thread of the process (CLOCK_MONOTONIC is the host's).
  fvb_first_setup_us = fvb_first_setup_us or fvb_setup_us
  thread:set("fvb_setup_origin_us", fvb_first_setup_us)
end

-- init()'s requests when FVBENCH_KEYS > 0 (see the header): one per key,
-- requests[i + 1] or post_heads[i + 1] carrying key k<i>; the thread's
-- first request is key floor(j * K / THREADS).
local function init_keyed(kind, auth, threads)
  local first = math.floor(((fvb_thread_index or 1) - 1) * n_keys / threads) % n_keys
  if kind == "get" then
    for i = 0, n_keys - 1 do
      local extra = { key_header(i) }
      for _, h in ipairs(auth) do extra[#extra + 1] = h end
      requests[i + 1] = head("GET", extra) .. "\r\n"
    end
  elseif kind == "decision" then
    for i = 0, n_keys - 1 do
      local extra = {
        "Content-Type: application/json",
        "X-Original-Method: POST",
        "X-Original-URI: /v1/chat/completions",
        "X-Forwarded-For: 203.0.113." .. (i % 254 + 1),
        "Content-Length: 2",
        key_header(i),
      }
      for _, h in ipairs(auth) do extra[#extra + 1] = h end
      requests[i + 1] = head("POST", extra) .. "\r\n{}"
    end
  elseif kind == "post" then
    local body = read_file(getenv_required("FVBENCH_BODY_FILE"))
    post_heads = {}
    for i = 0, n_keys - 1 do
      local extra = { "Content-Type: application/json", "Content-Length: " .. #body, key_header(i) }
      for _, h in ipairs(auth) do extra[#extra + 1] = h end
      post_heads[i + 1] = head("POST", extra) .. "X-Request-Id: "
    end
    post_tail = "\r\n\r\n" .. body
    thread_tag = tostring(fvb_thread_index or 0) .. "-"
    next_key = first
    request = request_post_keyed
    return
  else
    error("pace.lua: FVBENCH_KIND=" .. kind .. " is not one of get, decision, post")
  end
  n_requests = #requests
  next_request = first
end

function init(args)
  setup_clock()
  local rate = getenv_number("FVBENCH_RATE")
  local threads = getenv_number("FVBENCH_THREADS")
  getenv_required("FVBENCH_OUT")
  fvb_thread_rate = rate / threads
  interval_us = 1e6 / fvb_thread_rate
  fvb_iv_width_us = getenv_interval_width()
  -- wrk gives each thread CONNECTIONS / THREADS connections (wrk.c main);
  -- each one's first delay() answers no response.
  firsts_left = math.floor((tonumber(os.getenv("FVBENCH_CONNECTIONS") or "") or 0) / threads)
  fvb_origin_us = fvb_setup_origin_us or now_us()
  local start_epoch = os.getenv("FVBENCH_START_EPOCH_US") or ""
  if start_epoch ~= "" then
    local epoch = getenv_number("FVBENCH_START_EPOCH_US")
    local offset = tonumber(os.getenv("FVBENCH_OFFSET_US") or "0")
    if offset == nil or offset ~= offset or offset < 0 or offset == math.huge then
      error("pace.lua: FVBENCH_OFFSET_US=" .. tostring(os.getenv("FVBENCH_OFFSET_US")) .. " is not a number >= 0")
    end
    local duration_s = getenv_number("FVBENCH_DURATION_S")
    -- thread j's slot 0 is j / rate after the instance's: the threads' slots interleave
    sync_start_us = epoch - epoch_minus_mono_us + offset
    window_end_us = sync_start_us + duration_s * 1e6
    fvb_sync_offset_us = ((fvb_thread_index or 1) - 1) * 1e6 / rate
    start_us = sync_start_us + fvb_sync_offset_us
    fvb_start_us = start_us
    -- every instance's intervals start at the common start (not + OFFSET)
    fvb_origin_us = epoch - epoch_minus_mono_us
  end

  local kind = getenv_required("FVBENCH_KIND")
  local jwt = os.getenv("FVBENCH_JWT") or ""
  local auth = {}
  if jwt ~= "" then auth = { "Authorization: Bearer " .. jwt } end
  n_keys = getenv_keys()
  if n_keys > 0 then return init_keyed(kind, auth, threads) end

  if kind == "get" then
    requests[1] = head("GET", auth) .. "\r\n"
  elseif kind == "decision" then
    -- One request per client address; cycled in request().
    for i = 1, 254 do
      local extra = {
        "Content-Type: application/json",
        "X-Original-Method: POST",
        "X-Original-URI: /v1/chat/completions",
        "X-Forwarded-For: 203.0.113." .. i,
        "Content-Length: 2",
      }
      for _, h in ipairs(auth) do extra[#extra + 1] = h end
      requests[i] = head("POST", extra) .. "\r\n{}"
    end
  elseif kind == "post" then
    local body = read_file(getenv_required("FVBENCH_BODY_FILE"))
    local extra = { "Content-Type: application/json", "Content-Length: " .. #body }
    for _, h in ipairs(auth) do extra[#extra + 1] = h end
    post_head = head("POST", extra) .. "X-Request-Id: "
    post_tail = "\r\n\r\n" .. body
    thread_tag = tostring(fvb_thread_index or 0) .. "-"
  else
    error("pace.lua: FVBENCH_KIND=" .. kind .. " is not one of get, decision, post")
  end
  n_requests = #requests
  -- Threads start at different points of the pool, so a short run still
  -- spreads its client addresses (decision) across the whole /24.
  if n_requests > 1 then next_request = ((fvb_thread_index or 1) - 1) * 97 % n_requests end
end

-- A synchronised thread whose first delay() comes more than MISSED_US
-- after its slot 0 was not ready at the common start (a slow launch, not
-- a slow engine): the slots that fell due before then are skipped and
-- counted (fvb_missed), never sent late in a burst that would overrun the
-- window and wrk's -d. The phase is the controller's to judge (a harness
-- fault: multi_loadgen.h); what this process sends keeps to the schedule.
local MISSED_US = 10000
local function skip_missed(now)
  local due_until = now - MISSED_US
  if window_end_us ~= nil and due_until > window_end_us then due_until = window_end_us end
  if due_until <= start_us then return end
  n_slots = math.ceil((due_until - start_us) / interval_us)
  fvb_missed = n_slots
end

-- Moves the counting to the interval that holds `now` (an event at or
-- after the current one's end; events come in time order within a
-- thread). Events before the origin (a synchronised thread's connections
-- come up before the common start) count in interval 1. Runs once per
-- interval and thread, not per request.
local function roll_interval(now)
  local i = math.floor((now - fvb_origin_us) / fvb_iv_width_us)
  if i < 0 then i = 0 end
  iv_end_us = fvb_origin_us + (i + 1) * fvb_iv_width_us
  iv_index = i + 1
  if iv_sent[iv_index] == nil then
    iv_sent[iv_index] = 0
    iv_completed[iv_index] = 0
    iv_late[iv_index] = 0
  end
end

function delay()
  local now = now_us()
  -- wrk calls delay() on a connection when its response completed (and
  -- once when it first came up): a completion, counted in its interval
  if now >= iv_end_us then roll_interval(now) end
  if firsts_left > 0 then
    firsts_left = firsts_left - 1
  else
    iv_completed[iv_index] = iv_completed[iv_index] + 1
  end
  if start_us == nil then
    start_us = now
    fvb_start_us = now
  end
  if n_slots == 0 and sync_start_us ~= nil then skip_missed(now) end
  local slot = start_us + n_slots * interval_us
  if window_end_us ~= nil and slot >= window_end_us then
    -- the schedule window is over: this connection idles until wrk's -d
    -- (and the thread's schedule is not extended: fvb_last_us stays)
    return math.floor((window_end_us - now) / 1000) + 3600000
  end
  fvb_last_us = now
  n_slots = n_slots + 1
  q_tail = q_tail + 1
  fvb_queue[q_tail] = slot
  if now - slot > 10000 and n_parked == 0 and pool_busy_since ~= nil and pool_busy_since <= slot then
    exhausted_at[q_tail] = true
  end
  local wait_ms = (slot - now) / 1000
  if wait_ms <= 0.5 then return 0 end
  parked_at[q_tail] = true
  n_parked = n_parked + 1
  pool_busy_since = nil
  return math.floor(wait_ms + 0.5)
end

local function record_send()
  if q_head > q_tail then return end  -- request() outside a paced send (wrk's verify call)
  local slot = fvb_queue[q_head]
  local exhausted = exhausted_at[q_head]
  local parked = parked_at[q_head]
  fvb_queue[q_head] = nil
  exhausted_at[q_head] = nil
  parked_at[q_head] = nil
  q_head = q_head + 1
  local now = now_us()
  if parked then
    n_parked = n_parked - 1
    if n_parked == 0 then pool_busy_since = now end
  end
  fvb_last_us = now
  local lag = now - slot
  if fvb_sent == 0 then fvb_first_lag_us = lag end
  fvb_sent = fvb_sent + 1
  if now >= iv_end_us then roll_interval(now) end
  iv_sent[iv_index] = iv_sent[iv_index] + 1
  if lag <= 0 then
    if -lag > fvb_early_max then fvb_early_max = -lag end
    return
  end
  fvb_lag_sum = fvb_lag_sum + lag
  if lag > fvb_lag_max then fvb_lag_max = lag end
  if lag > 1000 then
    fvb_late_1ms = fvb_late_1ms + 1
    if lag > 10000 then
      fvb_late_10ms = fvb_late_10ms + 1
      iv_late[iv_index] = iv_late[iv_index] + 1
      if exhausted then fvb_late_10ms_exhausted = fvb_late_10ms_exhausted + 1 end
    end
  end
end

function request()
  record_send()
  if post_head ~= nil then
    next_request = next_request + 1
    return post_head .. thread_tag .. next_request .. post_tail
  end
  next_request = next_request + 1
  if next_request > n_requests then next_request = 1 end
  return requests[next_request]
end

-- post with FVBENCH_KEYS > 0 (init_keyed installs it as request()): the
-- request id as above, the key taken in turn.
request_post_keyed = function()
  record_send()
  next_request = next_request + 1
  next_key = next_key + 1
  if next_key > n_keys then next_key = 1 end
  return post_heads[next_key] .. thread_tag .. next_request .. post_tail
end

if counting then
  -- Defined only when counting: wrk then builds a header table per response.
  function response(status, headers, body)
    fvb_responses = fvb_responses + 1
    if status < 200 or status > 299 then fvb_non_2xx = fvb_non_2xx + 1 end
    local key = tostring(status)
    fvb_status[key] = (fvb_status[key] or 0) + 1
    for name, _ in pairs(headers) do
      if string.find(string.lower(name), "ratelimit", 1, true) then
        fvb_ratelimit = fvb_ratelimit + 1
        break
      end
    end
  end
end

-- ------------------------------------------------------------------ done()
local function num(x)
  -- JSON has no NaN/Inf; wrk's stats never produce them, but guard anyway.
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return "null" end
  if x == math.floor(x) and math.abs(x) < 2^53 then return string.format("%d", x) end
  return string.format("%.3f", x)
end

-- A number the reader compares with what it asked for (target_rate: a
-- share such as 500 / 3 RPS): 17 significant digits, which read back as the
-- same double.
local function num_exact(x)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return "null" end
  return string.format("%.17g", x)
end

local function str(s)
  return '"' .. string.gsub(s, '[%c"\\]', function(c)
    return string.format("\\u%04x", string.byte(c))
  end) .. '"'
end

-- The requests one thread's schedule offered: its slots from its start (its
-- first delay(), when its first connection was up; wrk's start for a thread
-- that never paced) up to the end of wrk's window: wrk's start + -d (when wrk
-- sets `stop`; a thread that came up later has less of the window, and a
-- slot at or after the end was never the phase's), capped at done()'s time
-- (done() runs after the threads are joined and the statistics made, tens of
-- ms later on a busy host), and always through its last delay() or send (wrk
-- stops its threads up to 100 ms after -d: record_rate polls `stop`). When
-- every connection hangs (a dead link) delay() is no longer called, yet the
-- schedule went on offering requests until -d.
local function thread_scheduled(t, wrk_start_us, window_end, done_us, synchronised, duration_us)
  local t_start, t_last, t_rate = t:get("fvb_start_us"), t:get("fvb_last_us"), t:get("fvb_thread_rate")
  if t_start <= 0 then t_start, t_last = wrk_start_us, wrk_start_us end
  if t_rate == nil or t_rate <= 0 then return 0, t_start, 0 end
  -- Synchronised: the schedule is fixed in advance, every slot of the window
  -- (wrk runs at least 0.25 s past it, so none is cut off by wrk's stop):
  -- the slots of [its offset, duration) after the instance's start, counted
  -- from the thread's own offset (never from two Lua states' conversions of
  -- the wall clock, which differ by microseconds: 200 slots read 201), less a
  -- millionth of a slot for the float error (1.0000000001 slots are 1).
  local offset = t:get("fvb_sync_offset_us")
  if synchronised and duration_us ~= nil and offset ~= nil and offset >= 0 then
    if duration_us <= offset then return 0, t_start, t_rate end
    return math.ceil((duration_us - offset) * t_rate / 1e6 - 1e-6), t_start, t_rate
  end
  -- slots t_start + k / rate: every one through the last send, and every one
  -- strictly before the window's end
  local through_last = 0
  if t_last >= t_start then through_last = math.floor((t_last - t_start) * t_rate / 1e6) + 1 end
  local before_end = 0
  if window_end ~= nil then
    local t_end = math.min(window_end, done_us)
    if t_end > t_start then before_end = math.ceil((t_end - t_start) * t_rate / 1e6) end
  end
  return math.max(through_last, before_end), t_start, t_rate
end

-- Of one thread's `counted` slots, those a connection had claimed (its
-- delay() ran and its timer was armed) but not sent when wrk stopped the
-- thread, and due within the last ON_TIME_US of the counted schedule. wrk
-- stops a thread at its first 100 ms record_rate tick after `stop` (wrk.c),
-- and a timer that falls due in that tick is never followed by its send: the
-- request was cut off by wrk's stop while on time (a send within 10 ms of its
-- slot kept up, see the header), not left behind by a late load generator.
-- A claimed slot due earlier than that was already more than 10 ms late:
-- it stays never sent. done() reports these as unsent_at_stop and leaves
-- them out of `scheduled`.
local ON_TIME_US = 10000

-- Thread t's slots (slot k at t_start + k x spacing, k from 0) due before
-- the end of interval i (1-based), within 0..counted: the one rule that
-- places a slot in an interval (add_thread_scheduled, slot_interval).
local function slots_before_end(t, i, counted, t_start, spacing)
  local before = math.ceil((t:get("fvb_origin_us") + i * t:get("fvb_iv_width_us") - t_start) / spacing)
  if before < 0 then return 0 end
  if before > counted then return counted end
  return before
end

-- The interval slot k was counted in by add_thread_scheduled.
local function slot_interval(t, k, counted, t_start, spacing)
  local i = math.floor((t_start + k * spacing - t:get("fvb_origin_us")) / t:get("fvb_iv_width_us")) + 1
  if i < 1 then i = 1 end
  while slots_before_end(t, i, counted, t_start, spacing) <= k do i = i + 1 end
  while i > 1 and slots_before_end(t, i - 1, counted, t_start, spacing) > k do i = i - 1 end
  return i
end

-- `scheduled_iv` (interval -> count) loses each cut slot in its interval.
local function thread_unsent_at_stop(t, counted, t_start, t_rate, scheduled_iv)
  if counted <= 0 or t_rate <= 0 then return 0 end
  local interval = 1e6 / t_rate
  local counted_end = t_start + counted * interval
  local n = 0
  for _, due in pairs(t:get("fvb_queue") or {}) do
    if due < counted_end - interval / 2 and due >= counted_end - ON_TIME_US then
      n = n + 1
      local k = math.floor((due - t_start) / interval + 0.5)
      local i = slot_interval(t, k, counted, t_start, interval)
      scheduled_iv[i] = (scheduled_iv[i] or 0) - 1
    end
  end
  return n
end

-- Adds one thread's `counted` slots to `scheduled_iv` (interval -> count),
-- each in the interval its time falls in: the slots before each interval's
-- end less those before the previous one's, so they sum to `counted` exactly.
local function add_thread_scheduled(scheduled_iv, t, counted, t_start, t_rate)
  if counted <= 0 or t_rate <= 0 then return end
  local spacing = 1e6 / t_rate
  local i, before_prev = 1, 0
  while before_prev < counted do
    local before = slots_before_end(t, i, counted, t_start, spacing)
    scheduled_iv[i] = (scheduled_iv[i] or 0) + before - before_prev
    before_prev = before
    i = i + 1
  end
end

-- Adds a thread's counts (interval -> count) into `into`.
local function add_intervals(into, counts)
  for i, n in pairs(counts or {}) do into[i] = (into[i] or 0) + n end
end

-- The field `intervals`: counts per interval on the phase's clock, every
-- series as long as the longest (0 where nothing happened).
local function intervals_json(origin_epoch_us, width_us, series)
  local n = 0
  for _, s in ipairs(series) do
    for i, _ in pairs(s[2]) do if i > n then n = i end end
  end
  local parts = {
    '"start_epoch_us":' .. string.format("%d", math.floor(origin_epoch_us + 0.5)),
    '"width_us":' .. string.format("%d", width_us),
  }
  for _, s in ipairs(series) do
    local values = {}
    for i = 1, n do values[i] = string.format("%d", s[2][i] or 0) end
    parts[#parts + 1] = '"' .. s[1] .. '":[' .. table.concat(values, ",") .. "]"
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- The latency histogram in fvbench's mergeable layout (support/core/
-- latency_histogram.h, latency_histogram_json.h): integer ns, exact
-- below 2048 ns, then 1024 buckets per power of two, sparse (index, count)
-- pairs. Built from wrk's own histogram (latency(i) = i-th distinct µs value
-- and its count), so it holds the same samples as the percentiles above;
-- timeouts are counted beside it as censored samples.
local function histogram_json(latency, timeouts, timeout_us)
  local counts, keys = {}, {}
  local recorded, min_ns, max_ns = 0, nil, 0
  for i = 1, #latency do
    local us, count = latency(i)
    local ns = math.floor(us * 1000 + 0.5)
    local index = ns
    if ns >= 2^40 then
      index = 31743
    elseif ns >= 2048 then
      local e = math.floor(math.log(ns) / math.log(2))
      while 2^e > ns do e = e - 1 end
      while 2^(e + 1) <= ns do e = e + 1 end
      local sh = e - 10
      index = sh * 1024 + math.floor(ns / 2^sh)
    end
    if counts[index] == nil then keys[#keys + 1] = index; counts[index] = 0 end
    counts[index] = counts[index] + count
    recorded = recorded + count
    if min_ns == nil or ns < min_ns then min_ns = ns end
    if ns > max_ns then max_ns = ns end
  end
  table.sort(keys)
  local pairs_out = {}
  for _, k in ipairs(keys) do
    pairs_out[#pairs_out + 1] = string.format("%d,%d", k, counts[k])
  end
  return '{"schema_version":1,"layout":"log-linear-ns-1024","recorded":' .. string.format("%d", recorded) ..
         ',"min_ns":' .. string.format("%d", min_ns or 0) .. ',"max_ns":' .. string.format("%d", max_ns) ..
         ',"timeouts":' .. string.format("%d", timeouts) .. ',"timeout_us":' .. string.format("%d", timeout_us) ..
         ',"buckets":[' .. table.concat(pairs_out, ",") .. "]}"
end

-- 16 hex digits from /dev/urandom (the clocks when it cannot be read): part
-- of a temporary name no one else chose.
local function random_hex()
  local u = io.open("/dev/urandom", "rb")
  local b = u and u:read(8)
  if u then u:close() end
  if b == nil or #b < 8 then return string.format("%x%x", os.time(), math.floor(now_us and now_us() or 0)) end
  return (b:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

-- Writes the result as a new file beside FVBENCH_OUT, renamed over it: the
-- temporary name is opened with mode "wx" (glibc fopen's O_EXCL; LuaJIT hands
-- the mode to fopen unchecked), which creates it only when nothing is there,
-- not even a link, and os.rename (rename(2)) replaces the name FVBENCH_OUT
-- without writing through a link someone put there. A full or failing disk
-- shows up at write or at close (the buffer is flushed there): the
-- temporary file is removed, the path named, the run failed (exit 3).
local function write_result(path, json)
  local f, tmp, err
  for _ = 1, 8 do
    tmp = path .. ".tmp." .. random_hex()
    f, err = io.open(tmp, "wx")
    if f ~= nil then break end
  end
  if f == nil then
    io.stderr:write("pace.lua: cannot write FVBENCH_OUT " .. path .. ": " .. tostring(err) .. "\n")
    os.exit(3)
  end
  local written, werr = f:write(json)
  local closed, cerr = f:close()
  if not written or not closed then
    os.remove(tmp)
    io.stderr:write("pace.lua: cannot write FVBENCH_OUT " .. path .. ": " .. tostring(werr or cerr) .. "\n")
    os.exit(3)
  end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then
    os.remove(tmp)
    io.stderr:write("pace.lua: cannot write FVBENCH_OUT " .. path .. ": " .. tostring(rerr) .. "\n")
    os.exit(3)
  end
end

function done(summary, latency, requests_stats)
  if now_us == nil then setup_clock() end
  local done_us = now_us()
  local duration_s = tonumber(os.getenv("FVBENCH_DURATION_S") or "")
  local duration_us = (duration_s ~= nil and duration_s > 0) and duration_s * 1e6 or nil
  -- wrk's start: its runtime (summary.duration) ends after the join, before
  -- the statistics that precede done(), so done_us - duration is later than
  -- the start by that time (ms on a busy host), and a window ending that much
  -- after wrk's stop would count slots no thread could still send (each
  -- thread stops 0-100 ms after the stop flag). The last setup() precedes
  -- the start: the earlier of the two.
  local wrk_start_us = done_us - summary.duration
  if fvb_setup_us ~= nil and fvb_setup_us < wrk_start_us then wrk_start_us = fvb_setup_us end
  -- The schedule window: from a common start (FVBENCH_START_EPOCH_US + OFFSET)
  -- for FVBENCH_DURATION_S, or from wrk's start to wrk's start + -d.
  local sync_start = nil
  local start_epoch = tonumber(os.getenv("FVBENCH_START_EPOCH_US") or "")
  if start_epoch ~= nil then
    sync_start = start_epoch - epoch_minus_mono_us + (tonumber(os.getenv("FVBENCH_OFFSET_US") or "0") or 0)
  end
  local window_start = sync_start or wrk_start_us
  local window_end = nil
  if duration_us ~= nil then window_end = window_start + duration_us end
  local scheduled = 0
  local sent, lag_max, lag_sum, late1, late10, early = 0, 0, 0, 0, 0, 0
  local late10_exhausted = 0
  local responses, non2xx, ratelimit = 0, 0, 0
  local status = {}
  local threads = fvb_threads or {}
  local unsent_at_stop = 0
  local missed = 0
  local first_lag, first_start = nil, nil  -- the earliest first send's lag; unsynchronised: earliest slot 0
  local iv_scheduled, iv_sent_all, iv_completed_all, iv_late_all = {}, {}, {}, {}
  for _, t in ipairs(threads) do
    local counted, t_start, t_rate =
      thread_scheduled(t, wrk_start_us, window_end, done_us, sync_start ~= nil, duration_us)
    if t:get("fvb_sent") > 0 then
      local lag0 = t:get("fvb_first_lag_us")
      if first_lag == nil or lag0 < first_lag then first_lag = lag0 end
      if not sync_start and (first_start == nil or t_start < first_start) then first_start = t_start end
    end
    add_thread_scheduled(iv_scheduled, t, counted, t_start, t_rate)
    add_intervals(iv_sent_all, t:get("fvb_iv_sent"))
    add_intervals(iv_completed_all, t:get("fvb_iv_completed"))
    add_intervals(iv_late_all, t:get("fvb_iv_late"))
    local cut = 0  -- synchronised: wrk's stop comes >= 0.25 s after the window, it cuts off no slot
    if sync_start == nil then cut = thread_unsent_at_stop(t, counted, t_start, t_rate, iv_scheduled) end
    scheduled = scheduled + counted - cut
    unsent_at_stop = unsent_at_stop + cut
    sent = sent + t:get("fvb_sent")
    missed = missed + (t:get("fvb_missed") or 0)
    lag_sum = lag_sum + t:get("fvb_lag_sum")
    late1 = late1 + t:get("fvb_late_1ms")
    late10 = late10 + t:get("fvb_late_10ms")
    late10_exhausted = late10_exhausted + t:get("fvb_late_10ms_exhausted")
    lag_max = math.max(lag_max, t:get("fvb_lag_max"))
    early = math.max(early, t:get("fvb_early_max"))
    responses = responses + t:get("fvb_responses")
    non2xx = non2xx + t:get("fvb_non_2xx")
    ratelimit = ratelimit + t:get("fvb_ratelimit")
    for k, v in pairs(t:get("fvb_status")) do status[k] = (status[k] or 0) + v end
  end

  local e = summary.errors
  local recorded = summary.requests - e.timeout
  local out = {}
  local function field(name, value) out[#out + 1] = str(name) .. ":" .. value end

  field("schema", str("fvbench.wrk.pace/1"))
  field("wrk_version_note", str("wrk 4.x (Debian 4.1.0 tested); latency from actual send, " ..
        "coordinated omission detected via send_lag_us, not corrected"))
  field("kind", str(os.getenv("FVBENCH_KIND") or ""))
  field("target_rate", num_exact(tonumber(os.getenv("FVBENCH_RATE") or "")))
  field("threads", num(#threads))
  field("threads_requested", num(tonumber(os.getenv("FVBENCH_THREADS") or "")))
  field("connections", num(tonumber(os.getenv("FVBENCH_CONNECTIONS") or "")))
  field("keys", num(tonumber(os.getenv("FVBENCH_KEYS") or "") or 0))
  field("requests", num(summary.requests))
  field("sent", num(sent))
  field("scheduled", num(scheduled))
  field("unsent_at_stop", num(unsent_at_stop))
  field("duration_us", num(summary.duration))
  field("bytes", num(summary.bytes))
  field("errors", "{" .. table.concat({
    '"connect":' .. num(e.connect), '"read":' .. num(e.read), '"write":' .. num(e.write),
    '"status":' .. num(e.status), '"timeout":' .. num(e.timeout) }, ",") .. "}")
  if counting then
    field("non_2xx", num(non2xx))
    field("non_2xx_source", str("response"))
    field("responses_seen", num(responses))
    field("ratelimit_evidence", num(ratelimit))
    local parts = {}
    for k, v in pairs(status) do parts[#parts + 1] = str(k) .. ":" .. num(v) end
    table.sort(parts)
    field("status_counts", "{" .. table.concat(parts, ",") .. "}")
  else
    field("non_2xx", num(e.status))
    field("non_2xx_source", str("errors.status (status > 399 only)"))
  end
  -- The histogram's own sample count is not exposed: summing latency(i)
  -- over its #latency distinct values scans the histogram from its minimum
  -- for every i (wrk stats_value_at), O(distinct values x range in µs): a
  -- 60 s phase at 2000 RPS on a busy host spent over 5 s in this loop after
  -- -d. The recorded responses (requests - timeouts) stand in for it; wrk's
  -- synthetic samples (stats_correct) are then not counted, and
  -- latency_samples / latency_recorded are no longer written.
  local samples = math.max(recorded, 0)
  -- Responses slower than --timeout are not in the histogram (stats_record
  -- refuses them): they are samples of at least the timeout. A percentile is
  -- taken at its rank among histogram + timeouts; one whose rank falls among
  -- the timeouts is censored (the parser reports it as >= timeout_us).
  local timeouts = math.min(e.timeout, summary.requests)
  local function pct(p)
    local total = samples + timeouts
    if timeouts == 0 or samples == 0 then return latency:percentile(p) end
    local rank = p / 100 * total
    if rank > samples then return latency.max end
    return latency:percentile(100 * rank / samples)
  end
  field("latency_us", "{" .. table.concat({
    '"p50":' .. num(pct(50)), '"p90":' .. num(pct(90)),
    '"p99":' .. num(pct(99)), '"p99_9":' .. num(pct(99.9)),
    '"max":' .. num(latency.max), '"mean":' .. num(latency.mean),
    '"stdev":' .. num(latency.stdev) }, ",") .. "}")
  field("latency_ranks", str("with_timeouts"))
  field("timeout_us", num(tonumber(os.getenv("FVBENCH_TIMEOUT_US") or "")))
  -- The schedule window on the wall clock (µs since the epoch), for merging
  -- several load generators: slot 0 (the common start + offset when
  -- synchronised, else the earliest thread's first slot), the window's end,
  -- how late the earliest first send left after its slot (the measured
  -- start of this instance is start_epoch_us + first_send_lag_us), when
  -- wrk itself started (its launch took from the controller's call to then),
  -- and the slots skipped because a thread came up after them (delay()).
  -- Times on this host's clock.
  local w_start = sync_start or first_start or wrk_start_us
  local w_end = window_end or done_us
  field("window", "{" .. table.concat({
    '"synchronised":' .. (sync_start and "true" or "false"),
    '"wrk_start_epoch_us":' .. num(math.floor(wrk_start_us + epoch_minus_mono_us + 0.5)),
    '"start_epoch_us":' .. num(math.floor(w_start + epoch_minus_mono_us + 0.5)),
    '"end_epoch_us":' .. num(math.floor(w_end + epoch_minus_mono_us + 0.5)),
    '"first_send_lag_us":' .. (first_lag and num(math.floor(first_lag + 0.5)) or "null"),
    '"missed_slots":' .. num(missed) }, ",") .. "}")
  -- The mergeable histogram only when asked (FVBENCH_HISTOGRAM=1):
  -- wrk's stats API walks its value range for every distinct value, so
  -- histogram_json costs O(distinct values x range) and, with a long tail,
  -- seconds after -d (the reason the per-value loop left done()).
  if os.getenv("FVBENCH_HISTOGRAM") == "1" then
    field("histogram", histogram_json(latency, timeouts, tonumber(os.getenv("FVBENCH_TIMEOUT_US") or "") or 2e6))
  end
  -- The intervals' origin on the wall clock: the common start, or the
  -- first setup() (each thread's fvb_origin_us).
  local iv_origin_epoch = start_epoch or ((fvb_first_setup_us or wrk_start_us) + epoch_minus_mono_us)
  local iv_width = (threads[1] and threads[1]:get("fvb_iv_width_us")) or 1e6
  field("intervals", intervals_json(iv_origin_epoch, iv_width, {
    { "scheduled", iv_scheduled }, { "sent", iv_sent_all },
    { "completed", iv_completed_all }, { "late_10ms", iv_late_all } }))
  field("send_lag_us", "{" .. table.concat({
    '"max":' .. num(lag_max), '"mean":' .. num(sent > 0 and lag_sum / sent or 0),
    '"late_1ms":' .. num(late1), '"late_10ms":' .. num(late10),
    '"late_10ms_pool_exhausted":' .. num(late10_exhausted),
    '"max_early":' .. num(early) }, ",") .. "}")

  local json = "{" .. table.concat(out, ",") .. "}\n"
  io.write(json)
  local path = os.getenv("FVBENCH_OUT")
  -- /dev/null: a warmup, whose output nobody reads (never renamed over).
  if path ~= nil and path ~= "" and path ~= "/dev/null" then write_result(path, json) end
end
