-- POST /vote for a random product (BENCH_STORM_ID: always that one), 80 % up.
-- BENCH_KEYS set: as one of those registered agents, from a random address (the API);
-- else with a random voter_id in the body (the baseline, which takes it as the voter).
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

function init(args)
  math.randomseed(os.time() * 1000 + tonumber(tostring({}):match("0x(%x+)") or "1", 16) % 100000)
end

function request()
  local direction = math.random() < 0.8 and "up" or "down"
  local id = ids[math.random(#ids)]
  if #keys > 0 then
    local body = '{"entity_id":"' .. id .. '","direction":"' .. direction .. '"}'
    local address = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255)
    return wrk.format("POST", "/vote", {
      ["Content-Type"] = "application/json",
      ["Authorization"] = "Bearer " .. keys[math.random(#keys)],
      ["X-Forwarded-For"] = address
    }, body)
  end
  local body = '{"entity_id":"' .. id .. '","direction":"' .. direction .. '","voter_id":"bench-' .. math.random(1, 1000000000) .. '"}'
  return wrk.format("POST", "/vote", { ["Content-Type"] = "application/json" }, body)
end
