-- wrk script used by bench/lib/wrk.ts: checks status and exact body of EVERY response, optionally pipelines `depth`
-- requests per write, and prints one machine-readable line "BENCH_JSON {...}" from done().
-- bench/lib/wrk.ts prepends `local bench = { path = ..., method = ..., headers = { [name] = value, ... },
-- status = ..., body_file = ..., body_size = ..., depth = ... }`: the expected body is read from body_file.

do
  local f = assert(io.open(bench.body_file, "rb"))
  bench.body = f:read("*a")
  f:close()
  assert(#bench.body == bench.body_size, "expected body file has the wrong size")
end

-- Extra request headers (e.g. Range): wrk.format() uses wrk.headers, both for wrk's static request built after
-- init() and for the pipelined batch below.
for name, value in pairs(bench.headers) do
  wrk.headers[name] = value
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  checked = 0
  invalid = 0
  first_invalid = ""
  if bench.depth > 1 then
    local reqs = {}
    for i = 1, bench.depth do
      reqs[i] = wrk.format(bench.method, bench.path)
    end
    pipelined = table.concat(reqs)
  end
end

-- Only defined when pipelining: without a global `request`, wrk keeps its static (fastest) request path.
if bench.depth > 1 then
  function request()
    return pipelined
  end
end

local function printable(s)
  return (s:gsub("[^%w%p ]", function(c) return string.format("\\x%02x", c:byte()) end))
end

-- Called by wrk for each response, including each response of a pipelined batch.
function response(status, headers, body)
  checked = checked + 1
  if status ~= bench.status or body ~= bench.body then
    invalid = invalid + 1
    if first_invalid == "" then
      body = body or ""
      first_invalid = "status " .. status .. ", " .. #body .. "-byte body: " .. printable(body:sub(1, 120))
    end
  end
end

local function json_string(s)
  return '"' .. (s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\u%04x", c:byte()) end)) .. '"'
end

function done(summary, latency, requests)
  local c, bad, first = 0, 0, ""
  for _, t in ipairs(threads) do
    c = c + (t:get("checked") or 0)
    bad = bad + (t:get("invalid") or 0)
    local f = t:get("first_invalid")
    if first == "" and f then first = f end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"stdev":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d},' ..
    '"checked":%d,"invalid":%d,"first_invalid":%s}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    c, bad, json_string(first)))
end
