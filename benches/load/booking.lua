-- POST /api/v1/bookings: one-night stays spread over LOAD_PROPERTIES properties
-- and LOAD_DAYS nights from BASE_YEAR-01-02, so that nearly every request creates
-- a booking (a durable commit). Conflicts (409) and refusals (422: beyond the
-- booking horizon) are counted, not hidden.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
wrk.headers["Content-Type"] = "application/json"
local properties = tonumber(os.getenv("LOAD_PROPERTIES"))
-- How many days of nights to spread over (LOAD_DAYS, default ten years).
local days = tonumber(os.getenv("LOAD_DAYS") or "3650")
local base = os.time({year = tonumber(os.getenv("BASE_YEAR")), month = 1, day = 2, hour = 12})

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end

local function day(offset)
  return os.date("!%Y-%m-%d", base + offset * 86400)
end

request = function()
  local p = math.random(1, properties)
  local d = math.random(0, days)
  local body = string.format(
    '{"property":"load-%d","checkIn":"%s","checkOut":"%s","guestName":"Load Test","guestEmail":"load@example.com","guests":2}',
    p, day(d), day(d + 1))
  return wrk.format(nil, nil, nil, body)
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
