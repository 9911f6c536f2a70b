-- wrk script of the arena's load runs (bench/arena/load.ts): rotates through a profile's requests (HttpArena's .raw
-- files, read from disk), ends every `per_connection`-th request with Connection: close so connections are renewed
-- as HttpArena's -r does, checks every answer and prints one "BENCH_JSON {...}" line from done().
-- load.ts prepends `local arena = { files = { ... }, close_files = { ... }, per_connection = N, pipeline = P,
-- status = { [200] = true, ... }, bodies = { [body] = true, ... } or nil, header = "content-encoding" or nil }`.

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local reqs, closing, dynamic = {}, {}, {}
for i, path in ipairs(arena.files) do
  local one = read(path)
  -- A pipelined batch is `pipeline` copies; its closing form ends with the one that says Connection: close.
  reqs[i] = string.rep(one, arena.pipeline)
  closing[i] = string.rep(one, arena.pipeline - 1) .. read(arena.close_files[i])
  -- gcannon's placeholders ({RAND:a:b}, {SEQ:n}: crud) are filled per request.
  dynamic[i] = one:find("{RAND:", 1, true) ~= nil or one:find("{SEQ:", 1, true) ~= nil
end
local n = #reqs
local seq = nil

-- A random integer in [a, b] for {RAND:a:b}; the next of a counter starting at n for {SEQ:n}.
local function fill(s)
  s = s:gsub("{RAND:(%d+):(%d+)}", function(a, b) return tostring(math.random(tonumber(a), tonumber(b))) end)
  return (s:gsub("{SEQ:(%d+)}", function(start)
    seq = (seq or tonumber(start) - 1) + 1
    return tostring(seq)
  end))
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  checked = 0
  invalid = 0
  first_invalid = ""
  counter = 0
  closes = 0
end

function request()
  counter = counter + 1
  local i = (counter - 1) % n + 1
  local r = reqs[i]
  if arena.per_connection > 0 and counter % arena.per_connection == 0 then
    closes = closes + 1
    r = closing[i]
  end
  if dynamic[i] then return fill(r) end
  return r
end

local function printable(s)
  return (s:gsub("[^%w%p ]", function(c) return string.format("\\x%02x", c:byte()) end))
end

local function has_header(headers, want)
  for name, _ in pairs(headers) do
    if string.lower(name) == want then return true end
  end
  return false
end

-- Called by wrk for each response, each one of a pipelined batch too.
function response(status, headers, body)
  checked = checked + 1
  body = body or ""
  local bad = not arena.status[status]
  if not bad and arena.bodies ~= nil and not arena.bodies[body] then bad = true end
  if not bad and arena.header ~= nil and not has_header(headers, arena.header) then bad = true end
  if bad then
    invalid = invalid + 1
    if first_invalid == "" then
      first_invalid = "status " .. status .. ", " .. #body .. "-byte body: " .. printable(body:sub(1, 120))
      if arena.header ~= nil and not has_header(headers, arena.header) then
        first_invalid = first_invalid .. " (no " .. arena.header .. " header)"
      end
    end
  end
end

local function json_string(s)
  return '"' .. (s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\u%04x", c:byte()) end)) .. '"'
end

function done(summary, latency, requests)
  local c, bad, first, closes = 0, 0, "", 0
  for _, t in ipairs(threads) do
    c = c + (t:get("checked") or 0)
    closes = closes + (t:get("closes") or 0)
    bad = bad + (t:get("invalid") or 0)
    local f = t:get("first_invalid")
    if first == "" and f then first = f end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"mean":%.1f,"max":%d,"p50":%d,"p99":%d},' ..
    '"checked":%d,"invalid":%d,"first_invalid":%s,"closes":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, latency:percentile(50), latency:percentile(99),
    c, bad, json_string(first), closes))
end
