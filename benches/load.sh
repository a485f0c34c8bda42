#!/usr/bin/env bash
# HTTP load harness (the API issue): requests/s and p99 latency of GET
# availability (30 nights), POST quote, GET summary and POST bookings
# (durable), each read beside a minimal hyper server answering the same bytes
# (the ceiling, rental-server/examples/ceiling.rs), in one run, at 64 connections. Release builds; wrk from
# Debian's packages. Usage: [LOAD_ONLY=writes|reads] [LOAD_RENTAL=path] benches/load.sh [seconds per endpoint, default 10]
# (LOAD_RENTAL measures another build of rental, such as one from before a change, with the same harness).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
CONNECTIONS=64
THREADS=2
export LOAD_DIR=$PWD/benches/load

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
cargo build --release -q -p rental-cli
cargo build --release -q -p rental-server --example ceiling
RENTAL=${LOAD_RENTAL:-$PWD/target/release/rental}
CEILING=$PWD/target/release/examples/ceiling

WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }

# A server on data directory $1 with the demo data plus $2 generated properties and
# $3 webhooks (default 0) posting to the ceiling server; sets PORT, RENTAL_KEY and LOG.
start_server() {
  local dir=$1 extra=$2 webhooks=${3:-0}
  python3 - "$extra" > "$WORK/load-properties.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, n + 1)]))
PY
  RENTAL_DATA_DIR=$dir "$RENTAL" property import examples/demo-properties.json >/dev/null
  [ "$extra" -gt 0 ] && RENTAL_DATA_DIR=$dir "$RENTAL" property import "$WORK/load-properties.json" >/dev/null
  RENTAL_KEY=$(RENTAL_DATA_DIR=$dir "$RENTAL" keys create --name load --scope read,write)
  export RENTAL_KEY
  for i in $(seq 1 "$webhooks"); do
    RENTAL_DATA_DIR=$dir "$RENTAL" webhook add --url "http://127.0.0.1:$CPORT/hook-$i" >/dev/null 2>&1
  done
  PORT=$(free_port)
  LOG=$WORK/server-$PORT.log
  RENTAL_DATA_DIR=$dir RENTAL_RATE_LIMIT=0 RENTAL_ALLOW_PRIVATE_TARGETS=true RUST_LOG=warn,rental_server::dispatcher=info \
    "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>"$LOG" &
  PIDS+=($!)
  wait_port "$PORT"
}

run() { # name url script (RENTAL_KEY from the environment)
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/$3" "$2" | grep '^RESULT')
  printf '%-28s %s\n' "$1" "${out#RESULT }"
}

FROM=$(date -u -d '+60 days' +%F); TO=$(date -u -d '+90 days' +%F)
export QUOTE_IN=$(date -u -d '+60 days' +%F) QUOTE_OUT=$(date -u -d '+67 days' +%F) BASE_YEAR=$(( $(date -u +%Y) + 1 ))
# Nights within the 36-month booking horizon (from next January), so that the
# writes are creations, not 422s.
export LOAD_PROPERTIES=200 LOAD_DAYS=900

echo "machine: $(nproc) cores, $(uname -r); wrk -t$THREADS -c$CONNECTIONS -d${SECONDS_EACH}s; data on $(df -T "$WORK" | awk 'NR==2 {print $2}')"

CPORT=$(free_port)
"$CEILING" "127.0.0.1:$CPORT" 2>/dev/null &
PIDS+=($!)
wait_port "$CPORT"
CEILING_URL="http://127.0.0.1:$CPORT/"

if [ "${LOAD_ONLY:-}" != writes ]; then  # LOAD_ONLY=writes: only the booking runs
start_server "$WORK/reads" 0
BASE="http://127.0.0.1:$PORT"
READ_KEY=$RENTAL_KEY

# The bytes a read answers (url [JSON to POST]), in a file for its ceiling.
body_of() {
  local file post=()
  file=$(mktemp "$WORK/body.XXXXXX")
  [ -n "${2:-}" ] && post=(-H 'Content-Type: application/json' -d "$2")
  curl -sf -o "$file" -H "Authorization: Bearer $READ_KEY" "${post[@]}" "$1"
  echo "$file"
}
# Each read runs right after a ceiling answering the same bytes, so both see the
# same machine; the ratio is against that ceiling run. The machine's speed drifts
# by tens of per cent from minute to minute, so pairs are fairer than one figure.
paired() { # name url script [JSON to POST]
  local body cport cpid ceiling ceiling_p99 out rps
  body=$(body_of "$2" "${4:-}")
  cport=$(free_port)
  "$CEILING" "127.0.0.1:$cport" "$body" 2>/dev/null &
  cpid=$!
  wait_port "$cport"
  ceiling=$(RENTAL_KEY=none wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/auth.lua" \
    "http://127.0.0.1:$cport/" | grep '^RESULT')
  kill "$cpid"
  ceiling_p99=$(echo "$ceiling" | sed -n 's/.* p99_ms=\([0-9.]*\).*/\1/p')
  ceiling=$(echo "$ceiling" | sed -n 's/^RESULT rps=\([0-9]*\).*/\1/p')
  out=$(RENTAL_KEY=$READ_KEY wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/$3" "$2" | grep '^RESULT')
  rps=$(echo "$out" | sed -n 's/^RESULT rps=\([0-9]*\).*/\1/p')
  printf '%-28s %s ceiling_rps=%s ceiling_p99_ms=%s ratio=%s%% (%s bytes a body)\n' \
    "$1" "${out#RESULT }" "$ceiling" "$ceiling_p99" "$(( 100 * rps / ceiling ))" "$(wc -c < "$body")"
}

run "ceiling (fixed 200 B JSON)" "$CEILING_URL" auth.lua
paired "GET availability (30 nights)" "$BASE/api/v1/properties/sea-view/availability?from=$FROM&to=$TO" auth.lua
paired "POST quote (7 nights)" "$BASE/api/v1/quotes" quote.lua \
  "{\"property\":\"sea-view\",\"checkIn\":\"$QUOTE_IN\",\"checkOut\":\"$QUOTE_OUT\",\"guests\":3}"
paired "GET summary (3 properties)" "$BASE/api/v1/ha/summary" auth.lua
fi
[ "${LOAD_ONLY:-}" = reads ] && exit 0

start_server "$WORK/writes" "$LOAD_PROPERTIES"
run "POST bookings (durable)" "http://127.0.0.1:$PORT/api/v1/bookings" booking.lua

# The same with 5 webhooks subscribed to every event, delivered to the ceiling
# server (it answers 200 to anything), then how fast the deliveries drained.
start_server "$WORK/webhooks" "$LOAD_PROPERTIES" 5
run "POST bookings, 5 webhooks" "http://127.0.0.1:$PORT/api/v1/bookings" booking.lua
LOAD_END=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
# The server's CPU time (user + system, in clock ticks) from here to the end of the drain:
# per delivery, it moves far less with the machine's noise than the rate does.
cpu_ticks() { awk '{print $14 + $15}' "/proc/${PIDS[-1]}/stat"; }
CPU_START=$(cpu_ticks)
last=-1
while true; do
  sleep 2
  now=$(grep -c 'webhook attempt' "$LOG" || true)
  [ "$now" = "$last" ] && break
  last=$now
done
# Deliveries yield to requests while the server is busy (DispatchConfig::busy_above), so
# the rate that counts is the one after the load stops: the backlog draining at full speed.
python3 - "$LOG" "$LOAD_END" "$(( $(cpu_ticks) - CPU_START ))" "$(getconf CLK_TCK)" <<'PY'
import sys
from datetime import datetime
def when(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))
end = when(sys.argv[2])
during, after, last = 0, [], None
for line in open(sys.argv[1]):
    if "webhook attempt" not in line or "status=Some(200)" not in line:
        continue
    t = when(line.split()[0])
    if t <= end:
        during += 1
    else:
        after.append(t)
span = (after[-1] - after[0]).total_seconds() if len(after) > 1 else 0
rate = len(after) / span if span else 0
lag = (after[-1] - end).total_seconds() if after else 0
cpu_us = int(sys.argv[3]) / int(sys.argv[4]) * 1e6 / len(after) if after else 0
print(f"{'webhook deliveries':28} during_load={during} after_load={len(after)} drain_rate={rate:.0f}/s "
      f"all_delivered_after={lag:.1f}s cpu_per_delivery={cpu_us:.0f}us")
PY
