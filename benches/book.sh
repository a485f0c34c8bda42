#!/usr/bin/env bash
# The booking page's quote view (docs/API.md section 20): server time per
# request from the access log (warm, one client at a time), latency at 16
# connections with wrk, and the page's weight. Release build; wrk from Debian.
# Usage: benches/book.sh [seconds under load, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
cargo build --release -q -p rental-cli
cargo build --release -q -p rental-server --example ceiling
RENTAL=$PWD/target/release/rental
WORK=$(mktemp -d)
PID=
CPID=
cleanup() { for p in $PID $CPID; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
CPORT=$(free_port)
"$PWD/target/release/examples/ceiling" "127.0.0.1:$CPORT" 2>/dev/null &
CPID=$!
PORT=$(free_port)
RENTAL_DATA_DIR=$WORK/data RUST_LOG=warn,rental::access=info \
  "$RENTAL" serve --demo --listen "127.0.0.1:$PORT" >/dev/null 2>>"$WORK/log" &
PID=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

IN=$(date -u -d '+60 days' +%F); OUT=$(date -u -d '+67 days' +%F)
URL="http://127.0.0.1:$PORT/book/sea-view?checkIn=$IN&checkOut=$OUT&guests=3"
echo "machine: $(nproc) cores; quote view of a 7-night stay: $URL"

# Server time: the access log's ms of each request, after 200 warm-up requests.
for _ in $(seq 200); do curl -s -o /dev/null "$URL"; done
mark=$(wc -l <"$WORK/log")
for _ in $(seq 1000); do curl -s -o /dev/null "$URL"; done
tail -n +"$((mark + 1))" "$WORK/log" | python3 -c '
import re, sys
ms = sorted(float(m.group(1)) for m in (re.search(r"ms=\"?([0-9.]+)", l) for l in sys.stdin) if m)
at = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
print(f"server time, one client: n={len(ms)} p50={at(0.5):.3f}ms p99={at(0.99):.3f}ms max={ms[-1]:.3f}ms")'

# Under load: 16 connections, each run beside one against a minimal hyper server answering a
# fixed 200-byte JSON (the ceiling), as the machine's speed drifts from minute to minute.
load() { # name url
  wrk -t2 -c16 -d"${SECONDS_EACH}s" --latency "$2" | awk -v name="$1" '
    /Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2}
    END {printf "%-24s 16 connections: rps=%d p50=%s p99=%s\n", name, rps, p50, p99}'
}
load "ceiling (200 B JSON)" "http://127.0.0.1:$CPORT/"
load "quote view" "$URL"

# Weight: the page is HTML with its CSS and script inline; embed.js is the host site's one file.
page=$(curl -s "$URL" | wc -c); gz=$(curl -s "$URL" | gzip -9 | wc -c)
first=$(curl -s "http://127.0.0.1:$PORT/book/sea-view" | wc -c)
embed=$(curl -s "http://127.0.0.1:$PORT/book/embed.js" | wc -c)
echo "weight: quote view ${page} B (${gz} B gzipped), page without a stay ${first} B, embed.js ${embed} B"
