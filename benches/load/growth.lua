-- POST /api/v1/bookings for benches/growth.sh: one-night stays spread over
-- LOAD_PROPERTIES properties and GROWTH_DAYS nights from tomorrow on (default
-- 1,090: stays can be booked up to three years ahead).
--
-- GROWTH_PICK=free (the default) asks only for nights no earlier request of
-- the run asked for: each wrk thread of each chunk (GROWTH_CHUNK) walks its own
-- range of the property × night slots, scattered over both by a fixed
-- permutation, so every request is a creation and the 201 rate measures what
-- a booking costs as the store grows, not how full the calendar is.
-- GROWTH_PICK=random picks property and night at random: the 409s then grow
-- as the nights fill up. Conflicts are counted, never hidden.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
wrk.headers["Content-Type"] = "application/json"
local properties = tonumber(os.getenv("LOAD_PROPERTIES"))
local days = tonumber(os.getenv("GROWTH_DAYS") or "1090")
local pick = os.getenv("GROWTH_PICK") or "free"
local chunk = tonumber(os.getenv("GROWTH_CHUNK") or "1")
local chunks = tonumber(os.getenv("GROWTH_CHUNKS") or "12")
local now = os.time()
local base = now - (now % 86400) + 86400 + 12 * 3600 -- tomorrow, noon UTC
local slots = properties * days

-- A multiplier with no factor in common with `slots`: i -> i * step mod slots
-- visits every slot once, scattered over properties and nights.
local function coprime_step(n)
  local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
  local step = math.floor(n * 0.6180339887)
  if step % 2 == 0 then step = step + 1 end
  while gcd(step, n) ~= 1 do step = step + 2 end
  return step
end
local step = coprime_step(slots)

local next_thread = 0
local counter = 0
local first_slot = 0
local last_slot = 0

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  -- This thread's share of the slots: chunk by chunk, thread by thread.
  local share = math.floor(slots / (chunks * 2))
  first_slot = ((chunk - 1) * 2 + thread_id) * share
  last_slot = first_slot + share
  counter = first_slot
end

local function day(offset)
  return os.date("!%Y-%m-%d", base + offset * 86400)
end

local function next_pair()
  if pick == "random" or counter >= last_slot then
    return math.random(1, properties), math.random(0, days - 1)
  end
  local slot = (counter * step) % slots
  counter = counter + 1
  return slot % properties + 1, math.floor(slot / properties)
end

request = function()
  local p, d = next_pair()
  local body = string.format(
    '{"property":"load-%d","checkIn":"%s","checkOut":"%s","guestName":"Load Test","guestEmail":"load@example.com","guests":2}',
    p, day(d), day(d + 1))
  return wrk.format(nil, nil, nil, body)
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")

local report_setup = setup
function setup(thread)
  report_setup(thread)
  thread:set("thread_id", next_thread)
  next_thread = next_thread + 1
end
