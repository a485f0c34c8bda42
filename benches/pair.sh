#!/usr/bin/env bash
# Paired A/B load of booking creations: two `rental` binaries (say, a release
# build of main and of a branch), each on a fresh data directory with the
# load properties, run alternately so both see the same machine, which drifts
# by tens of per cent from minute to minute. The run is load.sh's
# `POST bookings (durable)`. Usage:
#   benches/pair.sh BEFORE_BINARY AFTER_BINARY [seconds per run, default 10] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1; AFTER=$2; SECONDS_EACH=${3:-10}; ROUNDS=${4:-3}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
export LOAD_DIR=$PWD/benches/load LOAD_PROPERTIES=200 LOAD_DAYS=900 BASE_YEAR=$(( $(date -u +%Y) + 1 ))
WORK=$(mktemp -d); PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; exit 1; }
python3 - > "$WORK/props.json" <<'PY'
import json
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, 201)]))
PY
one() { # binary label
  local dir=$WORK/$2-$RANDOM bin=$1
  RENTAL_DATA_DIR=$dir "$bin" property import examples/demo-properties.json >/dev/null
  RENTAL_DATA_DIR=$dir "$bin" property import "$WORK/props.json" >/dev/null
  RENTAL_KEY=$(RENTAL_DATA_DIR=$dir "$bin" keys create --name load --scope read,write); export RENTAL_KEY
  local port; port=$(free_port)
  RENTAL_DATA_DIR=$dir RENTAL_RATE_LIMIT=0 RUST_LOG=warn "$bin" serve --listen "127.0.0.1:$port" >/dev/null 2>&1 &
  local pid=$!; wait_port "$port"
  local out; out=$(wrk -t2 -c64 -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/booking.lua" "http://127.0.0.1:$port/api/v1/bookings" | grep '^RESULT')
  kill "$pid"; wait "$pid" 2>/dev/null || true
  printf '%-6s %s\n' "$2" "${out#RESULT }"
}
for _ in $(seq "$ROUNDS"); do one "$BEFORE" before; one "$AFTER" after; done
