-- POST /vote for a random product (BENCH_STORM_ID: always that one), 80 % up.
-- BENCH_KEYS set: as one of those registered agents, from a random address (the API);
-- else with a random voter_id in the body (the baseline, which takes it as the voter).
-- In a storm each agent turns its vote over every time (up, down, up, …), so after its first
-- vote every vote is a change: the counters move on every one. Each wrk thread votes with its
-- own share of the agents, so two threads never send one agent's turn twice.
local ids, keys = {}, {}
local storm = os.getenv("BENCH_STORM_ID")
if storm == nil or storm == "" then
  for line in io.lines(os.getenv("BENCH_IDS")) do ids[#ids + 1] = line end
else
  ids[1] = storm
end
local keyFile = os.getenv("BENCH_KEYS")
if keyFile ~= nil and keyFile ~= "" then
  for line in io.lines(keyFile) do keys[#keys + 1] = line end
end

local threads = 0
function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end

local mine, last = {}, {}
function init(args)
  math.randomseed(os.time() * 1000 + tonumber(tostring({}):match("0x(%x+)") or "1", 16) % 100000)
  -- Split by index modulo 2: the benchmark runs wrk -t2 (bench/src/api.ts, THREADS).
  local index = thread_index or 0
  for i = 1, #keys do
    if (i - 1) % 2 == index % 2 then mine[#mine + 1] = keys[i] end
  end
  if #mine == 0 then mine = keys end
end

function request()
  local id = ids[math.random(#ids)]
  if #keys > 0 then
    local key
    local direction
    if storm ~= nil and storm ~= "" then
      key = mine[math.random(#mine)]
      direction = (last[key] == "up") and "down" or ((last[key] == "down") and "up" or (math.random() < 0.8 and "up" or "down"))
      last[key] = direction
    else
      key = keys[math.random(#keys)]
      direction = math.random() < 0.8 and "up" or "down"
    end
    local body = '{"entity_id":"' .. id .. '","direction":"' .. direction .. '"}'
    local address = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255)
    return wrk.format("POST", "/vote", {
      ["Content-Type"] = "application/json",
      ["Authorization"] = "Bearer " .. key,
      ["X-Forwarded-For"] = address
    }, body)
  end
  local direction = math.random() < 0.8 and "up" or "down"
  local body = '{"entity_id":"' .. id .. '","direction":"' .. direction .. '","voter_id":"bench-' .. math.random(1, 1000000000) .. '"}'
  return wrk.format("POST", "/vote", { ["Content-Type"] = "application/json" }, body)
end
