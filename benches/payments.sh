#!/usr/bin/env bash
# The payments load run (issue 39): checkout, checkout/complete, GET payments and the Stripe
# webhook at 16 connections against a release server whose provider is an in-memory Stripe
# stand-in answering at once (rental-server/examples/stripe_stand_in.rs), so that the
# latencies are the server's own time plus loopback calls to it; the stand-in's own time per
# call is measured apart at the same 16 connections, and the server's CPU per request (which
# holds none of the stand-in's) from /proc. Release builds; wrk from Debian.
# Usage: benches/payments.sh [seconds per repeated run, default 10] [bookings, default 6000]
# PAYMENTS_RENTAL=path: that release `rental` binary instead of this tree's (paired runs).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
BOOKINGS=${2:-6000}
export LOAD_DIR=$PWD/benches/load
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
[ -n "${PAYMENTS_RENTAL:-}" ] || cargo build --release -q -p rental-cli
cargo build --release -q -p rental-server --example stripe_stand_in
RENTAL=${PAYMENTS_RENTAL:-$PWD/target/release/rental}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }

SPORT=$(free_port)
target/release/examples/stripe_stand_in "127.0.0.1:$SPORT" 2>/dev/null &
PIDS+=($!)
wait_port "$SPORT"

# 200 properties (requests, one installment due at booking: the default terms) and the bookings.
python3 - > "$WORK/properties.json" <<'PY'
import json
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, 201)]))
PY
export RENTAL_DATA_DIR=$WORK/data
"$RENTAL" property import "$WORK/properties.json" >/dev/null
RENTAL_KEY=$("$RENTAL" keys create --name load --scope read,write)
export RENTAL_KEY
export WEBHOOK_SECRET=whsec_load_run
PORT=$(free_port)
RENTAL_RATE_LIMIT=0 RENTAL_PAYMENTS_PROVIDER=stripe RENTAL_STRIPE_SECRET_KEY=sk_test_load_run \
  RENTAL_STRIPE_PUBLISHABLE_KEY=pk_test_load_run RENTAL_STRIPE_WEBHOOK_SECRET=$WEBHOOK_SECRET \
  RENTAL_STRIPE_API_BASE="http://127.0.0.1:$SPORT" RUST_LOG=warn \
  "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>"$WORK/log" &
SERVER_PID=$!
PIDS+=($SERVER_PID)
wait_port "$PORT"
BASE="http://127.0.0.1:$PORT"
echo "machine: $(nproc) cores, $(uname -r); wrk -t2 -c16; $BOOKINGS bookings; data on $(df -T "$WORK" | awk 'NR==2 {print $2}')"

# The bookings, made through the API (one a night over 200 properties), their codes in a file.
export PAY_CODES=$WORK/codes BASE BOOKINGS
python3 - <<'PY'
import http.client, json, os, datetime
from urllib.parse import urlparse
base, key, n = urlparse(os.environ["BASE"]), os.environ["RENTAL_KEY"], int(os.environ["BOOKINGS"])
c = http.client.HTTPConnection(base.hostname, base.port)
head = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
start = datetime.date.today() + datetime.timedelta(days=60)
codes = []
for i in range(n):
    day = start + datetime.timedelta(days=i // 200)
    body = {"property": f"load-{i % 200 + 1}", "checkIn": day.isoformat(),
            "checkOut": (day + datetime.timedelta(days=1)).isoformat(),
            "guestName": "Load Test", "guestEmail": "load@example.com", "guests": 2}
    c.request("POST", "/api/v1/bookings", json.dumps(body), head)
    r = c.getresponse(); answer = json.loads(r.read())
    assert r.status == 201, (r.status, answer)
    codes.append(answer["code"])
open(os.environ["PAY_CODES"], "w").write("\n".join(codes) + "\n")
PY

# The server's CPU time (user + system, clock ticks) from /proc: per request it moves far less
# with the machine's noise than the latencies do, and it holds none of the stand-in's time.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
run() { # name, then PAY_* in the environment
  local out before requests
  before=$(cpu_ticks)
  out=$(wrk -t2 -c16 -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/${SCRIPT:-payments.lua}" "$BASE" | grep '^RESULT')
  requests=$(echo "$out" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')
  printf '%-36s %s cpu_us=%s\n' "$1" "${out#RESULT }" \
    "$(( ($(cpu_ticks) - before) * 1000000 / $(getconf CLK_TCK) / (requests > 0 ? requests : 1) ))"
}
PAY_ONCE=1 PAY_PATH=checkout run "POST checkout (first: customer+setup)"
PAY_PATH=checkout run "POST checkout (repeat: setup fetched)"
# Every card saved, as Stripe.js would in each guest's browser.
curl -s -X POST "http://127.0.0.1:$SPORT/_confirm_all" >/dev/null
PAY_ONCE=1 PAY_PATH=checkout/complete run "POST checkout/complete (first: hold)"
PAY_PATH=checkout/complete run "POST checkout/complete (repeat)"
PAY_METHOD=GET PAY_PATH=payments run "GET payments"

# Webhook events for each booking's hold, signed now (the tolerance is 300 s).
export PAY_EVENTS=$WORK/events
python3 - <<'PY'
import http.client, json, os, time, hmac, hashlib
from urllib.parse import urlparse
base, key = urlparse(os.environ["BASE"]), os.environ["RENTAL_KEY"]
c = http.client.HTTPConnection(base.hostname, base.port)
lines, t = [], int(time.time())
for n, code in enumerate(open(os.environ["PAY_CODES"]).read().split()):
    c.request("GET", f"/api/v1/bookings/{code}/payments", headers={"Authorization": f"Bearer {key}"})
    ref = json.loads(c.getresponse().read())["data"][0]["providerRef"]
    body = json.dumps({"id": f"evt_{n}", "type": "payment_intent.amount_capturable_updated",
                       "data": {"object": {"object": "payment_intent", "id": ref}}}, separators=(",", ":"))
    mac = hmac.new(os.environ["WEBHOOK_SECRET"].encode(), f"{t}.{body}".encode(), hashlib.sha256).hexdigest()
    lines.append(f"t={t},v1={mac}\t{body}")
open(os.environ["PAY_EVENTS"], "w").write("\n".join(lines) + "\n")
PY
SCRIPT=webhook.lua run "POST /payments/stripe/webhook"

# The stand-in's own time per call at the same concurrency: the GET of a payment intent, which
# complete's repeat makes once and the webhook twice (reported apart from the server's time).
PI=$(head -1 "$PAY_EVENTS" | grep -o '"id":"pi_[0-9]*"' | cut -d'"' -f4)
out=$(RENTAL_KEY=none wrk -t2 -c16 -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/auth.lua" "http://127.0.0.1:$SPORT/v1/payment_intents/$PI" | grep '^RESULT')
printf '%-36s %s\n' "stand-in alone: GET payment intent" "${out#RESULT }"
