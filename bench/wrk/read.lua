-- GET /products/{id} of a random product (ids from the file BENCH_IDS names).
-- BENCH_ACCEPT_ENCODING set: sent as Accept-Encoding, as most HTTP clients do.
local ids = {}
for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
local encoding = os.getenv("BENCH_ACCEPT_ENCODING")
local headers = {}
if encoding ~= nil and encoding ~= "" then headers["Accept-Encoding"] = encoding end

function init(args)
  math.randomseed(os.time() * 1000 + tonumber(tostring({}):match("0x(%x+)") or "1", 16) % 100000)
end

-- BENCH_DELAY_MS set: each connection waits a random 0-2× that many ms before each request, so that a run offers about
-- connections × 1000 ÷ BENCH_DELAY_MS requests a second whatever the server's speed: two servers' latencies compared
-- at one load, not each at its own saturation. Random, because wrk's timers of one fixed delay fire together and the
-- requests then arrived in bursts (docs/benchmarks.md, "Issue 23's cached read at one offered load").
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "")
if pause ~= nil and pause > 0 then
  function delay() return math.random(0, 2 * pause) end
end

function request()
  return wrk.format("GET", "/products/" .. ids[math.random(#ids)], headers)
end

-- BENCH_QUANTILES set: the latency distribution as 1,000 quantiles (at 0.05 %, 0.15 %, … 99.95 %, in µs),
-- so that the driver can pool several runs' latencies into one p99 (bench/src/wrk.ts, pooledPercentile).
local quantiles = os.getenv("BENCH_QUANTILES")
if quantiles ~= nil and quantiles ~= "" then
  function done(summary, latency, requests)
    for i = 1, 1000 do print(string.format("quantile %d", latency:percentile((i - 0.5) / 10))) end
  end
end
