#!/usr/bin/env bash
# Growth harness (issue 12, "Costs that stay flat as the data grows"): a release
# `rental serve` over 1,000 properties takes durable one-night bookings from wrk
# (16 connections, benches/load/growth.lua: spread over the properties and the
# next 1,090 nights, so few conflict) in chunks, and the script prints, per chunk,
# bookings/s and the server's RSS; then the summary's median latency over the
# 1,000 properties at the start and the end, the store's size on disk, the RSS
# after a restart (before and after a first request touches the data), and a
# raw redb single-row commit loop measured in the same run, on the same
# filesystem, with the ratio of bookings/s to it.
#
# Usage: benches/growth.sh [chunks, default 12] [seconds per chunk, default 10]
# Environment:
#   GROWTH_RENTAL=path   the `rental` binary to measure (default: this tree's
#                        release build, built first). Another build (an older
#                        commit) works as long as it has `rental serve --listen`,
#                        `rental property import` and `rental keys create`.
#   GROWTH_PROPERTIES=N  properties (default 1000); GROWTH_CONNECTIONS=N (default 16)
#   GROWTH_DAYS=N        nights the stays are spread over, from tomorrow (default 1090)
#   GROWTH_DIR=dir       where the data directory goes (default: a mktemp -d under /tmp)
#   GROWTH_PICK=free     each request asks for a night no other request of the run asked
#                        for (the default: every request is a creation); =random picks
#                        at random, and the 409s grow as the nights fill up
#   GROWTH_KEEP=1        keep the work directory (the grown data directory, the key in
#                        key.txt, the server log) to profile against it afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
CHUNKS=${1:-12}
CHUNK_SECONDS=${2:-10}
PROPERTIES=${GROWTH_PROPERTIES:-1000}
CONNECTIONS=${GROWTH_CONNECTIONS:-16}
THREADS=2
PROBE_SECONDS=5
SUMMARY_SECONDS=5
export LOAD_DIR=$PWD/benches/load

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ -z "${GROWTH_RENTAL:-}" ]; then
  cargo build --release -q -p rental-cli
fi
cargo build --release -q -p rental-benches --bin redb-commits
RENTAL=${GROWTH_RENTAL:-$PWD/target/release/rental}
PROBE=$PWD/target/release/redb-commits

WORK=$(mktemp -d "${GROWTH_DIR:-/tmp}/growth.XXXXXX")
DATA=$WORK/data
SERVER=
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  if [ -n "${GROWTH_KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }
rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$SERVER/status"; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }  # a key=value of a RESULT line

start_server() {
  PORT=$(free_port)
  RENTAL_DATA_DIR=$DATA RENTAL_RATE_LIMIT=0 RUST_LOG=warn \
    "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>>"$WORK/server.log" &
  SERVER=$!
  wait_port "$PORT"
  BASE="http://127.0.0.1:$PORT"
}
stop_server() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=; }

summary_median() { # GET /api/v1/ha/summary from one connection for a few seconds; prints p50 and p99
  wrk -t1 -c1 -d"${SUMMARY_SECONDS}s" --latency -s "$LOAD_DIR/auth.lua" "$BASE/api/v1/ha/summary" \
    | grep '^RESULT' | awk '{for (i = 2; i <= 4; i++) sub(/.*=/, "", $i); print $3, $4, $2}'
}
probe() { "$PROBE" "$WORK" "$PROBE_SECONDS" | grep "^RESULT" | field commits_per_s; }

python3 - "$PROPERTIES" > "$WORK/properties.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, n + 1)]))
PY
RENTAL_DATA_DIR=$DATA "$RENTAL" property import "$WORK/properties.json" >/dev/null
RENTAL_KEY=$(RENTAL_DATA_DIR=$DATA "$RENTAL" keys create --name growth --scope read,write)
export RENTAL_KEY LOAD_PROPERTIES=$PROPERTIES
echo "$RENTAL_KEY" > "$WORK/key.txt"

echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); data on $(df -T "$WORK" | awk 'NR==2 {print $2}')"
echo "rental: $RENTAL; $PROPERTIES properties; wrk -t$THREADS -c$CONNECTIONS, $CHUNKS chunks of ${CHUNK_SECONDS}s"

start_server
sleep 1
RSS_EMPTY=$(rss_mb)
SUMMARY_START=$(summary_median)
RAW_START=$(probe)
echo "empty store: rss=${RSS_EMPTY}MB summary(p50_ms p99_ms rps)=$SUMMARY_START raw_redb_commits=${RAW_START}/s"

TOTAL=0
FIRST_RPS=
LAST_RPS=
for chunk in $(seq 1 "$CHUNKS"); do
  out=$(GROWTH_CHUNK=$chunk GROWTH_CHUNKS=$CHUNKS wrk -t"$THREADS" -c"$CONNECTIONS" -d"${CHUNK_SECONDS}s" --latency -s "$LOAD_DIR/growth.lua" "$BASE/api/v1/bookings" | grep '^RESULT')
  statuses=$(echo "$out" | field statuses)
  created=$(echo "$statuses" | tr ',' '\n' | sed -n 's/^201=//p')
  created=${created:-0}
  TOTAL=$(( TOTAL + created ))
  conflicts=$(echo "$statuses" | tr ',' '\n' | sed -n 's/^409=//p')
  rps=$(python3 -c "print(round($created / $CHUNK_SECONDS))")
  answered=$(python3 -c "print(round(($created + ${conflicts:-0}) / $CHUNK_SECONDS))")
  FIRST_RPS=${FIRST_RPS:-$rps}
  FIRST_ANSWERED=${FIRST_ANSWERED:-$answered}
  LAST_RPS=$rps
  LAST_ANSWERED=$answered
  printf 'chunk %2d: bookings/s=%-6s total=%-7s rss=%sMB p50_ms=%s p99_ms=%s 201+409/s=%s statuses=%s\n' \
    "$chunk" "$rps" "$TOTAL" "$(rss_mb)" "$(echo "$out" | field p50_ms)" "$(echo "$out" | field p99_ms)" "$answered" "$statuses"
done
RSS_LOADED=$(rss_mb)
SUMMARY_END=$(summary_median)
RAW_END=$(probe)
echo "after $TOTAL bookings: rss=${RSS_LOADED}MB summary(p50_ms p99_ms rps)=$SUMMARY_END raw_redb_commits=${RAW_END}/s"

stop_server
STORE_BYTES=$(stat -c %s "$DATA/rental.redb")
STORE_DISK=$(du -B1 "$DATA/rental.redb" | cut -f1)
start_server
sleep 2
RSS_RESTART=$(rss_mb)
curl -sf -o /dev/null -H "Authorization: Bearer $RENTAL_KEY" "$BASE/api/v1/ha/summary"
RSS_TOUCHED=$(rss_mb)
SUMMARY_RESTART=$(summary_median)
RSS_RESTART_END=$(rss_mb)

python3 - <<PY
total, first, last = $TOTAL, $FIRST_RPS, $LAST_RPS
raw_start, raw_end = $RAW_START, $RAW_END
size, disk = $STORE_BYTES, $STORE_DISK
mb = 1024 * 1024
print("== growth figures ==")
print(f"bookings/s          first chunk {first}, last chunk {last} ({last / first:.2f}x; goal >= 0.9x)")
print(f"201s + 409s /s      first chunk $FIRST_ANSWERED, last chunk $LAST_ANSWERED "
      f"({$LAST_ANSWERED / $FIRST_ANSWERED:.2f}x; the 409s grow as the nights fill up)")
print(f"raw redb commits/s  start {raw_start}, end {raw_end}; bookings/s over raw: "
      f"start {first / raw_start:.2f}x, end {last / raw_end:.2f}x (goal >= 1.0x)")
print(f"server RSS          empty {$RSS_EMPTY} MB, after {total} bookings {$RSS_LOADED} MB "
      f"({($RSS_LOADED - $RSS_EMPTY) * mb / max(total, 1):.0f} B per booking; goal <= 200 MB)")
print(f"RSS after restart   {$RSS_RESTART} MB (goal <= 60 MB), after the first summary {$RSS_TOUCHED} MB, "
      f"after {${SUMMARY_SECONDS}} s of summaries {$RSS_RESTART_END} MB")
s0, s1, s2 = "$SUMMARY_START".split(), "$SUMMARY_END".split(), "$SUMMARY_RESTART".split()
print(f"summary p50 (p99)   empty {s0[0]} ({s0[1]}) ms, after the load {s1[0]} ({s1[1]}) ms, "
      f"after the restart {s2[0]} ({s2[1]}) ms (goal p50 <= 5 ms)")
print(f"store on disk       {size / mb:.0f} MB file ({disk / mb:.0f} MB allocated), "
      f"{size / max(total, 1):.0f} B per booking")
PY
