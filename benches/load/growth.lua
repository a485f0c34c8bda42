-- POST /api/v1/bookings for benches/growth.sh: one-night stays spread over
-- LOAD_PROPERTIES properties and GROWTH_DAYS nights from tomorrow on (default
-- 1,090: stays can be booked up to three years ahead), so that most requests
-- create a booking (a durable redb commit). Conflicts (409) are counted, not
-- hidden; the figure the harness reports is the 201s.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
wrk.headers["Content-Type"] = "application/json"
local properties = tonumber(os.getenv("LOAD_PROPERTIES"))
local days = tonumber(os.getenv("GROWTH_DAYS") or "1090")
local now = os.time()
local base = now - (now % 86400) + 86400 + 12 * 3600 -- tomorrow, noon UTC

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end

local function day(offset)
  return os.date("!%Y-%m-%d", base + offset * 86400)
end

request = function()
  local p = math.random(1, properties)
  local d = math.random(0, days - 1)
  local body = string.format(
    '{"property":"load-%d","checkIn":"%s","checkOut":"%s","guestName":"Load Test","guestEmail":"load@example.com","guests":2}',
    p, day(d), day(d + 1))
  return wrk.format(nil, nil, nil, body)
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
