#!/usr/bin/env bash
# Memory of backups and restores of a large store (issue 45 item 6): builds a
# backup of N bookings (default 1,000,000; each with its payment and message
# records, copied from one real booking under new codes), then measures the
# peak RSS of `rental restore` into an empty data directory, of `rental backup`
# of it, and of a server answering GET /api/v1/backup, beside the server's idle RSS.
# Usage: benches/backup_rss.sh [bookings, default 1000000]   (BACKUP_RENTAL=path for another build)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
if [ -z "${BACKUP_RENTAL:-}" ]; then cargo build --release -q -p rental-cli; fi
RENTAL=${BACKUP_RENTAL:-$PWD/target/release/rental}
WORK=$(mktemp -d); PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
peak() { awk '/Maximum resident set size/ {printf "%.1f MB", $6 / 1024}' "$1"; }
serve() {  # serve DIR: starts a server on DIR, sets PID and BASE
  local port; port=$(free_port)
  RENTAL_DATA_DIR=$1 RENTAL_RATE_LIMIT=0 RUST_LOG=warn "$RENTAL" serve --listen "127.0.0.1:$port" >/dev/null 2>>"$WORK/log" &
  PID=$!; BASE="http://127.0.0.1:$port"
  for _ in $(seq 300); do curl -sf "$BASE/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$PID/status"; }

# One real booking, backed up: the pattern of every copy.
SEED=$WORK/seed
RENTAL_DATA_DIR=$SEED "$RENTAL" property import examples/demo-properties.json >/dev/null
KEY=$(RENTAL_DATA_DIR=$SEED "$RENTAL" keys create --name rss --scope read,write,backup)
serve "$SEED"
IN=$(date -u -d '+40 days' +%F); OUT=$(date -u -d '+45 days' +%F)
curl -sf -X POST "$BASE/api/v1/bookings" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d "{\"property\":\"sea-view\",\"checkIn\":\"$IN\",\"checkOut\":\"$OUT\",\"guestName\":\"Ana Lima\",\"guestEmail\":\"ana@example.com\",\"guests\":2}" >/dev/null
stop
RENTAL_DATA_DIR=$SEED "$RENTAL" backup --to "$WORK/seed.backup" >/dev/null

python3 - "$WORK/seed.backup" "$WORK/big.backup" "$N" <<'PY'
# The copies go where the backup itself would write them (each kind's rows by
# key, after the seed's), so a backup of the restored store is the same file.
import hashlib, json, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src, 'rb').read().split(b'\n')[:-1]
header, body, trailer = lines[0], lines[1:-1], json.loads(lines[-1])
booking = next(l for l in body if json.loads(l)['kind'] == 'booking')
code = json.loads(booking)['doc']['code'].encode()
def counted(line):
    record = json.loads(line)
    if record['kind'] not in ('booking', 'row') or code not in line:
        return None
    return 'bookings' if record['kind'] == 'booking' else record['doc']['record']
alphabet = b'23456789ABCDEFGHJKMNPQRSTUVWXYZ'
def code_of(i):
    return b'CP-' + bytes(alphabet[i // 31 ** p % 31] for p in range(5, -1, -1))
h = hashlib.sha256(); counts = dict(trailer['counts']); records = trailer['records']
with open(dst, 'wb') as out:
    def w(line):
        h.update(line + b'\n'); out.write(line + b'\n')
    w(header)
    group, kind = [], None
    def copies():
        global records
        for i in range(n - 1):
            c = code_of(i)
            for l in group:
                w(l.replace(code, c))
        counts[kind] += (n - 1) * len(group); records += (n - 1) * len(group)
    for l in body:
        k = counted(l)
        if group and k != kind:
            copies(); group = []
        w(l)
        if k:
            group.append(l); kind = k
    if group:
        copies()
    out.write(json.dumps({'end': True, 'records': records, 'counts': dict(sorted(counts.items())),
                          'sha256': h.hexdigest()}, separators=(',', ':')).encode() + b'\n')
PY
echo "backup of $N bookings: $(du -m "$WORK/big.backup" | cut -f1) MB, $(($(wc -l < "$WORK/big.backup") - 2)) records"

DIR=$WORK/data
/usr/bin/time -v "$RENTAL" restore "$WORK/big.backup" --data-dir "$DIR" >/dev/null 2>"$WORK/restore.time"
echo "rental restore: peak RSS $(peak "$WORK/restore.time"), $(awk -F': ' '/Elapsed/ {print $2}' "$WORK/restore.time") wall"
RENTAL_DATA_DIR=$DIR /usr/bin/time -v "$RENTAL" backup --to "$WORK/again.backup" >/dev/null 2>"$WORK/backup.time"
echo "rental backup: peak RSS $(peak "$WORK/backup.time"), $(awk -F': ' '/Elapsed/ {print $2}' "$WORK/backup.time") wall"
# The header (and so the trailer's checksum) says when each was written; every record between is the same.
cmp -s <(sed '1d;$d' "$WORK/big.backup") <(sed '1d;$d' "$WORK/again.backup") \
  && echo "the new backup holds the file's records, byte for byte" || echo "the new backup's records differ from the file's"

KEY=$(RENTAL_DATA_DIR=$DIR "$RENTAL" keys create --name rss --scope backup)
serve "$DIR"
sleep 1; IDLE=$(rss); MAX=$IDLE
curl -sf "$BASE/api/v1/backup" -H "Authorization: Bearer $KEY" -o "$WORK/http.backup" &
CURL=$!
while kill -0 "$CURL" 2>/dev/null; do NOW=$(rss); MAX=$(python3 -c "print(max($MAX, $NOW))"); sleep 0.2; done
wait "$CURL" || echo "GET /api/v1/backup failed"
echo "server: idle RSS $IDLE MB, peak while answering GET /api/v1/backup $MAX MB ($(du -m "$WORK/http.backup" | cut -f1) MB sent)"
