#!/usr/bin/env bash
# Booking creation on PostgreSQL (issue 13, docs/PERFORMANCE.md "Several servers (PostgreSQL)"):
# durable POST /api/v1/bookings through one server and through two servers on one
# database, beside a raw INSERT ... COMMIT probe (pgbench) into the same calendar
# table with the same exclusion constraint, at the same number of clients; then
# GET availability on PostgreSQL beside the same on redb (both from the read cache).
# A throwaway cluster (Debian's binaries, fsync on, synchronous_commit on) in a
# temporary directory, stopped at the end. Usage: benches/postgres.sh [seconds, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
CLIENTS=16
# Nights within the 36-month booking horizon, so that requests are creations, not 422s.
export LOAD_DIR=$PWD/benches/load LOAD_PROPERTIES=200 LOAD_DAYS=900 BASE_YEAR=$(( $(date -u +%Y) + 1 ))

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
cargo build --release -q -p rental-cli
RENTAL=$PWD/target/release/rental

WORK=$(mktemp -d)
chmod 755 "$WORK"
PIDS=()
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "no server on $1" >&2; exit 1; }

mkdir "$WORK/pg"
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK/pg"
PGPORT=$(free_port)
as_pg "$PGBIN/initdb" -D "$WORK/pg/data" -A trust -U postgres --locale=C >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
  -o "-p $PGPORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
PSQL="$PGBIN/psql -q -h 127.0.0.1 -p $PGPORT -U postgres"

python3 - "$LOAD_PROPERTIES" > "$WORK/load-properties.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps([{"slug": f"load-{i}", "name": f"Load {i}", "timezone": "UTC", "maxGuests": 4,
                   "nightlyRate": 10000, "minNights": 1, "maxNights": 30} for i in range(1, n + 1)]))
PY

# A fresh database $1 with the demo and load properties; sets URL and RENTAL_KEY.
prepare() {
  $PSQL -c "CREATE DATABASE $1" postgres
  URL="postgres://postgres@127.0.0.1:$PGPORT/$1"
  RENTAL_DATABASE_URL=$URL "$RENTAL" property import examples/demo-properties.json >/dev/null
  RENTAL_DATABASE_URL=$URL "$RENTAL" property import "$WORK/load-properties.json" >/dev/null
  RENTAL_KEY=$(RENTAL_DATABASE_URL=$URL "$RENTAL" keys create --name load --scope read,write)
  export RENTAL_KEY
}

# A server on $1 (a database URL, or a data directory for redb); sets PORT.
serve() {
  PORT=$(free_port)
  if [[ $1 == postgres://* ]]; then
    RENTAL_DATABASE_URL=$1 RENTAL_RATE_LIMIT=0 RUST_LOG=warn "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>"$WORK/serve-$PORT.log" &
  else
    RENTAL_DATA_DIR=$1 RENTAL_RATE_LIMIT=0 RUST_LOG=warn "$RENTAL" serve --listen "127.0.0.1:$PORT" >/dev/null 2>"$WORK/serve-$PORT.log" &
  fi
  PIDS+=($!)
  wait_port "$PORT"
}

wrk_run() { # connections url script
  wrk -t2 -c"$1" -d"${SECONDS_EACH}s" --latency -s "$LOAD_DIR/$3" "$2" | grep '^RESULT' | sed 's/^RESULT //'
}

echo "machine: $(nproc) cores; PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') fsync=on synchronous_commit=on; $CLIENTS clients; ${SECONDS_EACH}s each"

# The raw probe: one INSERT into the calendar table per transaction, each on its own
# property (a random id among two billion) so that none is refused, through the same
# exclusion constraint, into a fresh database $1. It runs right before each booking
# measurement: this machine's fsync time moves by 2x within minutes, so each ratio is
# against the rate beside it.
cat > "$WORK/insert.sql" <<'SQL'
\set night random(0, 900)
\set property random(1, 2000000000)
INSERT INTO calendar (holder, property, property_id, check_in, check_out, kind, guests, guest_name, guarded)
SELECT h, h, :property, DATE '2027-01-01' + :night, DATE '2027-01-02' + :night, 0, 2, 'Load Test', 'booking'
FROM (SELECT gen_random_uuid()::text AS h) AS new_holder;
SQL
raw_probe() {
  $PSQL -c "CREATE DATABASE $1" postgres
  RENTAL_DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/$1" "$RENTAL" db migrate >/dev/null
  "$PGBIN/pgbench" -n -h 127.0.0.1 -p "$PGPORT" -U postgres -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -f "$WORK/insert.sql" "$1" 2>/dev/null \
    | awk '/^tps/ {tps = int($3)} /latency average/ {avg = $4} END {printf "tps=%d avg_ms=%s", tps, avg}'
}
created() { sed -n 's/.*201=\([0-9]*\).*/\1/p'; }  # the 201s of a RESULT line

RAW1=$(raw_probe probe1)
printf '%-40s %s\n' "raw INSERT ... COMMIT (pgbench)" "$RAW1"
prepare one
serve "$URL"
ONE=$(wrk_run $CLIENTS "http://127.0.0.1:$PORT/api/v1/bookings" booking.lua)
printf '%-40s %s\n' "POST bookings, 1 server" "$ONE"
kill "${PIDS[-1]}"

RAW2=$(raw_probe probe2)
printf '%-40s %s\n' "raw INSERT ... COMMIT (pgbench)" "$RAW2"
prepare two
serve "$URL"; A=$PORT
serve "$URL"; B=$PORT
wrk_run $((CLIENTS / 2)) "http://127.0.0.1:$A/api/v1/bookings" booking.lua > "$WORK/a.txt" &
FIRST=$!
wrk_run $((CLIENTS / 2)) "http://127.0.0.1:$B/api/v1/bookings" booking.lua > "$WORK/b.txt"
wait "$FIRST"
printf '%-40s %s\n' "POST bookings, 2 servers (server A)" "$(cat "$WORK/a.txt")"
printf '%-40s %s\n' "POST bookings, 2 servers (server B)" "$(cat "$WORK/b.txt")"
python3 - "$(echo "$ONE" | created)" "$(created < "$WORK/a.txt")" "$(created < "$WORK/b.txt")" \
  "$(echo "$RAW1" | sed 's/tps=\([0-9]*\).*/\1/')" "$(echo "$RAW2" | sed 's/tps=\([0-9]*\).*/\1/')" "$SECONDS_EACH" <<'PY'
import sys
one, a, b, raw1, raw2, secs = (int(x) for x in sys.argv[1:])
print(f"bookings created/s over the raw rate beside it: 1 server {one / secs:.0f} / {raw1} = {one / secs / raw1:.2f}x, "
      f"2 servers {(a + b) / secs:.0f} / {raw2} = {(a + b) / secs / raw2:.2f}x (goal >= 0.5x)")
PY

# Reads from the cache: availability on PostgreSQL beside redb.
FROM=$(date -u -d '+60 days' +%F); TO=$(date -u -d '+90 days' +%F)
prepare reads
serve "$URL"
printf '%-40s %s\n' "GET availability, PostgreSQL" "$(wrk_run 64 "http://127.0.0.1:$PORT/api/v1/properties/sea-view/availability?from=$FROM&to=$TO" auth.lua)"
RENTAL_DATA_DIR=$WORK/redb "$RENTAL" property import examples/demo-properties.json >/dev/null
RENTAL_KEY=$(RENTAL_DATA_DIR=$WORK/redb "$RENTAL" keys create --name load --scope read,write)
serve "$WORK/redb"
printf '%-40s %s\n' "GET availability, redb" "$(wrk_run 64 "http://127.0.0.1:$PORT/api/v1/properties/sea-view/availability?from=$FROM&to=$TO" auth.lua)"
