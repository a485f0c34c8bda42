-- The payment endpoints (benches/payments.sh): each of wrk's 2 threads walks its half of the
-- booking codes in PAY_CODES (one a line), in turn, for PAY_PATH ("checkout",
-- "checkout/complete", "payments") with PAY_METHOD (POST or GET). With PAY_ONCE=1 each code
-- is asked once and a thread stops when its half is done (a first checkout, a first
-- payment); otherwise the codes go round (repeats). Statuses are counted, not hidden.
local path, method = os.getenv("PAY_PATH"), os.getenv("PAY_METHOD") or "POST"
local once = os.getenv("PAY_ONCE") == "1"
local body = nil
if method == "POST" then body = "{}" end
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
wrk.headers["Content-Type"] = "application/json"

local codes = {}
for line in io.lines(os.getenv("PAY_CODES")) do table.insert(codes, line) end

dofile(os.getenv("LOAD_DIR") .. "/report.lua")

-- Each thread starts at its own number (0 or 1), set in the setup phase, and steps by 2.
local numbered = 0
local report_setup = setup
function setup(thread)
  thread:set("first", numbered)
  numbered = numbered + 1
  report_setup(thread)
end

local sent, finished = 0, false
request = function()
  local i = first + 2 * sent + 1
  sent = sent + 1
  if i > #codes then
    finished = true
    i = (i - 1) % #codes + 1
  end
  return wrk.format(method, "/api/v1/bookings/" .. codes[i] .. "/" .. path, nil, body)
end

local counted = response
response = function(status, headers, body)
  counted(status, headers, body)
  if once and finished then wrk.thread:stop() end
end
