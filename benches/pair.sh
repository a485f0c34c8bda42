#!/usr/bin/env bash
# Paired A/B load of booking creations: two `rental` binaries (say, a release
# build of main and of a branch), each on a fresh data directory with the
# load properties, run alternately so both see the same machine, which drifts
# by tens of per cent from minute to minute. The run is load.sh's
# `POST bookings (durable)`; each line also gives the server's CPU per creation
# (/proc) and, where `perf` can count tracepoints, its system calls, futex calls
# and context switches per creation, which move far less than timings. Usage:
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
  # A second of creations first, so that the committer thread runs before perf attaches.
  wrk -t1 -c1 -d1s -s "$LOAD_DIR/booking.lua" "http://127.0.0.1:$port/api/v1/bookings" >/dev/null
  local counts=$WORK/counts-$RANDOM
  perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_futex,context-switches -p "$pid" -o "$counts" \
    -- sleep "$SECONDS_EACH" 2>/dev/null & local perf=$!
  local ticks; ticks=$(cpu_ticks "$pid")
  local out; out=$(wrk -t2 -c64 -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/booking.lua" "http://127.0.0.1:$port/api/v1/bookings" | grep '^RESULT')
  ticks=$(( $(cpu_ticks "$pid") - ticks ))
  wait "$perf" 2>/dev/null || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local created; created=$(sed -n 's/.*201=\([0-9]*\).*/\1/p' <<<"$out")
  local per; per=$(awk -v t="$ticks" -v n="${created:-0}" -v hz="$(getconf CLK_TCK)" -F, '
    BEGIN { if (n > 0) printf "cpu_us=%.0f", t * 1e6 / hz / n }
    /^[0-9]/ && n > 0 { sub(/.*:sys_enter_?/, "", $3); printf " %s=%.2f", ($3 == "" ? "syscalls" : $3), $1 / n }' "$counts" 2>/dev/null)
  printf '%-6s %s per creation: %s\n' "$2" "${out#RESULT }" "$per"
}
# User + system CPU ticks of a process so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for _ in $(seq "$ROUNDS"); do one "$BEFORE" before; one "$AFTER" after; done
