-- POST /payments/stripe/webhook (benches/payments.sh): signed events from PAY_EVENTS (one a
-- line: the Stripe-Signature header, a tab, the body), in turn.
local events = {}
for line in io.lines(os.getenv("PAY_EVENTS")) do
  local signature, body = line:match("^([^\t]+)\t(.*)$")
  table.insert(events, {signature, body})
end
local next_event = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function init(args)
  next_event = math.random(0, #events - 1)
end

request = function()
  next_event = next_event % #events + 1
  local e = events[next_event]
  return wrk.format(nil, "/payments/stripe/webhook", {["Stripe-Signature"] = e[1], ["Content-Type"] = "application/json"}, e[2])
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
