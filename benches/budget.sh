#!/usr/bin/env bash
# The CPU budget (docs/PERFORMANCE.md "CPU budget"): the server's CPU time
# (user + system, from /proc/PID/stat) per request for GET availability, POST
# quote, GET summary, a durable booking creation and a booking page view, each
# over one wrk run of a fixed length at 16 connections, divided by the requests
# wrk counted. Fails when an endpoint costs more than its budget + 15 %.
# CPU per request moves far less with a shared machine's speed than requests/s.
# Usage: [BUDGET_RENTAL=path] [BUDGET_ONLY=name,name] [BUDGET_PERF=dir] benches/budget.sh [seconds per endpoint, default 8]
# BUDGET_RENTAL measures another build (no budget check, figures only); BUDGET_PERF
# also samples the server with `perf record` during each run, into dir/NAME.data
# (`perf report -i dir/NAME.data --no-children --sort symbol` then says where the time went);
# BUDGET_PERF_ARGS adds options to perf record (`--call-graph dwarf` for callers).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-8}
CONNECTIONS=${BUDGET_CONNECTIONS:-16}
export LOAD_DIR=$PWD/benches/load LOAD_PROPERTIES=200 LOAD_DAYS=900 BASE_YEAR=$(( $(date -u +%Y) + 1 ))
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ -z "${BUDGET_RENTAL:-}" ]; then cargo build --release -q -p rental-cli; fi
RENTAL=${BUDGET_RENTAL:-$PWD/target/release/rental}
TICKS=$(getconf CLK_TCK)

WORK=$(mktemp -d); PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

python3 - > "$WORK/props.json" <<'PY'
import json
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, 201)]))
PY
DIR=$WORK/data
RENTAL_DATA_DIR=$DIR "$RENTAL" property import examples/demo-properties.json >/dev/null
RENTAL_DATA_DIR=$DIR "$RENTAL" property import "$WORK/props.json" >/dev/null
# The booking page's property (a build from before the page refuses it: its page figure is then a 404).
echo '[{"slug": "page", "name": "Page", "timezone": "UTC", "maxGuests": 4, "nightlyRate": 10000, "bookingPage": {"enabled": true}}]' > "$WORK/page.json"
RENTAL_DATA_DIR=$DIR "$RENTAL" property import "$WORK/page.json" >/dev/null 2>&1 || true
RENTAL_KEY=$(RENTAL_DATA_DIR=$DIR "$RENTAL" keys create --name budget --scope read,write); export RENTAL_KEY
PORT=$(free_port)
RENTAL_DATA_DIR=$DIR RENTAL_RATE_LIMIT=0 RUST_LOG=warn "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>"$WORK/log" &
PID=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

FROM=$(date -u -d '+60 days' +%F); TO=$(date -u -d '+90 days' +%F)
export QUOTE_IN=$FROM QUOTE_OUT=$(date -u -d '+67 days' +%F)
BASE="http://127.0.0.1:$PORT"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

# name url script: prints "name cpu_us requests rps p99_ms"
measure() {
  wrk -t2 -c"$CONNECTIONS" -d2s -s "$LOAD_DIR/$3" "$2" >/dev/null  # warm-up
  local before out requests rps p99 ticks
  if [ -n "${BUDGET_PERF:-}" ]; then
    mkdir -p "$BUDGET_PERF"
    perf record -q -e cpu-clock -F 999 ${BUDGET_PERF_ARGS:-} -p "$PID" -o "$BUDGET_PERF/$1.data" -- sleep "$SECONDS_EACH" 2>/dev/null &
    PERF=$!
  fi
  before=$(cpu_ticks)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/$3" "$2" | grep '^RESULT')
  ticks=$(( $(cpu_ticks) - before ))
  if [ -n "${BUDGET_PERF:-}" ]; then wait "$PERF"; fi
  requests=$(echo "$out" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')
  rps=$(echo "$out" | sed -n 's/.*rps=\([0-9]*\).*/\1/p')
  p99=$(echo "$out" | sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p')
  echo "$1 $(( ticks * 1000000 / TICKS / requests )) $requests $rps $p99 $(echo "$out" | sed -n 's/.*statuses=//p')"
}

wanted() { [ -z "${BUDGET_ONLY:-}" ] || [[ ",$BUDGET_ONLY," == *",$1,"* ]]; }
RESULTS=$WORK/results
: > "$RESULTS"
wanted availability && measure availability "$BASE/api/v1/properties/sea-view/availability?from=$FROM&to=$TO" auth.lua >> "$RESULTS"
wanted quote && measure quote "$BASE/api/v1/quotes" quote.lua >> "$RESULTS"
wanted summary && measure summary "$BASE/api/v1/ha/summary" auth.lua >> "$RESULTS"
wanted page && measure page "$BASE/book/page?checkIn=$FROM&checkOut=$QUOTE_OUT&guests=3" auth.lua >> "$RESULTS"
wanted booking && measure booking "$BASE/api/v1/bookings" booking.lua >> "$RESULTS"

# The budget: the rows of the table under "## CPU budget" in docs/PERFORMANCE.md, `| name | µs |`.
BUDGET=$(awk '/^## CPU budget/ {on=1; next} /^## / {on=0} on && /^\| `[a-z]+` \|/ {gsub(/[`| ]+/, " "); print $1, $2}' docs/PERFORMANCE.md)
printf '%-14s %8s %8s %9s %8s %9s  %s\n' endpoint cpu_us budget requests rps p99_ms statuses
fail=0
while read -r name cpu requests rps p99 statuses; do
  budget=$(echo "$BUDGET" | awk -v n="$name" '$1 == n {print $2}')
  verdict=""
  if [ -z "${BUDGET_RENTAL:-}" ] && [ -n "$budget" ] && [ "$(( cpu * 100 ))" -gt "$(( budget * 115 ))" ]; then
    verdict="OVER BUDGET (+15 % is $(( budget * 115 / 100 )))"; fail=1
  fi
  printf '%-14s %8s %8s %9s %8s %9s  %s %s\n' "$name" "$cpu" "${budget:--}" "$requests" "$rps" "$p99" "$statuses" "$verdict"
done < "$RESULTS"
exit "$fail"
