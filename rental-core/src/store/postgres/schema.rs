//! The PostgreSQL schema as versioned migrations, applied in order under an
//! advisory lock so that several processes starting at once apply each once.

use super::pool::Conn;
use crate::store::{StoreError, StoreResult};

/// The advisory lock key migrations hold (`rental` in ASCII).
const MIGRATION_LOCK: i64 = 0x72_65_6e_74_61_6c;

/// Every migration, by version. Records are JSON documents (`doc`: jsonb up
/// to version 3, json since), so a field added to a record later passes
/// through untouched; the other columns exist for indexes and constraints
/// only. Text keys sort as bytes (`C`), as the embedded stores order them.
pub(super) const MIGRATIONS: &[(i32, &str)] = &[
    (
        1,
        r#"
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE properties (slug text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE bookings (
    code text COLLATE "C" PRIMARY KEY,
    property text COLLATE "C" NOT NULL,
    check_in date NOT NULL,
    check_out date NOT NULL,
    status text NOT NULL,
    source text NOT NULL,
    updated_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    may_lapse boolean NOT NULL,
    doc jsonb NOT NULL
);
CREATE INDEX bookings_order ON bookings (check_in, code);
CREATE INDEX bookings_pending ON bookings (property, code) WHERE status = 'pending';
CREATE INDEX bookings_lapsing ON bookings (created_at, code) WHERE may_lapse;
CREATE TABLE blocks (id text COLLATE "C" PRIMARY KEY, property text COLLATE "C" NOT NULL, doc jsonb NOT NULL);
-- What holds each night: active bookings and blocks. `guarded` is 'booking' for a
-- direct booking, 'block' for a manual block, NULL for what a channel imported
-- (recorded even when it overlaps). Direct bookings never share a night, nor a
-- direct booking and a manual block: the net behind the in-transaction check.
CREATE TABLE calendar (
    holder text COLLATE "C" PRIMARY KEY,
    property text COLLATE "C" NOT NULL,
    check_in date NOT NULL,
    check_out date NOT NULL,
    kind smallint NOT NULL,
    guests integer NOT NULL,
    guest_name text NOT NULL,
    guarded text,
    EXCLUDE USING gist (property WITH =, daterange(check_in, check_out) WITH &&)
        WHERE (guarded = 'booking'),
    EXCLUDE USING gist (property WITH =, daterange(check_in, check_out) WITH &&, guarded WITH <>)
        WHERE (guarded IS NOT NULL)
);
CREATE INDEX calendar_by_property ON calendar (property, check_in, holder);
CREATE TABLE api_keys (id text COLLATE "C" PRIMARY KEY, hash text NOT NULL UNIQUE, doc jsonb NOT NULL);
CREATE TABLE webhooks (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE outbox (seq bigserial PRIMARY KEY, fanned_out boolean NOT NULL DEFAULT false, doc jsonb NOT NULL);
CREATE INDEX outbox_unfanned ON outbox (seq) WHERE NOT fanned_out;
CREATE TABLE deliveries (
    id text COLLATE "C" PRIMARY KEY,
    webhook_id text COLLATE "C" NOT NULL,
    event_seq bigint NOT NULL,
    due_at bigint,
    finished_at bigint,
    doc jsonb NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (due_at, event_seq, id) WHERE due_at IS NOT NULL;
CREATE INDEX deliveries_finished ON deliveries (finished_at, id) WHERE finished_at IS NOT NULL;
CREATE INDEX deliveries_event ON deliveries (event_seq);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, event_seq);
CREATE TABLE delivery_leases (
    delivery_id text COLLATE "C" PRIMARY KEY,
    webhook_id text COLLATE "C" NOT NULL,
    owner text NOT NULL,
    until timestamptz NOT NULL
);
CREATE TABLE idempotency (key text COLLATE "C" PRIMARY KEY, created_at timestamptz NOT NULL, doc jsonb NOT NULL);
CREATE INDEX idempotency_created ON idempotency (created_at, key);
CREATE TABLE feeds (
    property text COLLATE "C" NOT NULL,
    feed text COLLATE "C" NOT NULL,
    doc jsonb NOT NULL,
    PRIMARY KEY (property, feed)
);
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
-- A version per topic (a property's data, the keys) that each write bumps,
-- so every process's read cache knows what to read again.
CREATE TABLE changes (topic text COLLATE "C" PRIMARY KEY, version bigint NOT NULL);
"#,
    ),
    (
        2,
        r#"
-- Admin sessions (by hex SHA-256 of the cookie id) and failed logins per
-- client address, so that every process knows them.
CREATE TABLE admin_sessions (key text COLLATE "C" PRIMARY KEY, last_seen timestamptz NOT NULL, doc jsonb NOT NULL);
CREATE INDEX admin_sessions_seen ON admin_sessions (last_seen);
CREATE TABLE login_failures (client text COLLATE "C" PRIMARY KEY, last timestamptz NOT NULL, doc jsonb NOT NULL);
"#,
    ),
    (
        3,
        r"
-- One exclusion constraint on an integer property id instead of two on the
-- slug: the same rule, checked in about 40 % of the time per row. Its third
-- term (the holder, or '' for a manual block) differs between any two rows
-- unless both are blocks: blocks may overlap each other, a direct booking
-- overlaps neither.
ALTER TABLE properties ADD COLUMN id integer GENERATED ALWAYS AS IDENTITY UNIQUE;
ALTER TABLE calendar ADD COLUMN property_id integer;
UPDATE calendar c SET property_id = p.id FROM properties p WHERE p.slug = c.property;
ALTER TABLE calendar ALTER COLUMN property_id SET NOT NULL,
    DROP CONSTRAINT calendar_property_daterange_excl,
    DROP CONSTRAINT calendar_property_daterange_guarded_excl,
    ADD CONSTRAINT calendar_guarded_nights EXCLUDE USING gist (
        property_id WITH =,
        daterange(check_in, check_out) WITH &&,
        (CASE WHEN guarded = 'block' THEN '' ELSE holder END) WITH <>
    ) WHERE (guarded IS NOT NULL);
",
    ),
    (
        4,
        r"
-- Documents as json rather than jsonb: nothing queries inside them, and json
-- keeps them as sent, where jsonb parses each one going in and prints it
-- again coming out (a sixth of the database's CPU per booking created).
ALTER TABLE properties ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE bookings ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE blocks ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE api_keys ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE webhooks ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE outbox ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE deliveries ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE idempotency ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE feeds ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE admin_sessions ALTER COLUMN doc TYPE json USING doc::json;
ALTER TABLE login_failures ALTER COLUMN doc TYPE json USING doc::json;
",
    ),
    (
        5,
        r"
-- A calendar's direct bookings and manual blocks are found by overlap in the
-- exclusion constraint's GiST index; only what channels imported (guarded
-- NULL, outside the constraint) needs an index by check-in, and a direct
-- booking no longer writes one.
CREATE INDEX calendar_imports ON calendar (property, check_in, holder) WHERE guarded IS NULL;
DROP INDEX calendar_by_property;
",
    ),
    (
        6,
        r#"
-- Records of every kind (store::record): a document under a key, with an
-- optional time in milliseconds since 1970 and its index.
CREATE TABLE records (
    kind text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    at bigint,
    doc json NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX records_at ON records (kind, at, key) WHERE at IS NOT NULL;
"#,
    ),
    (
        7,
        r"
-- The keys, webhooks, feed states and the admin dashboard's password,
-- sessions and failed logins become records. Keys, webhooks and feed states
-- keep their documents; a session's and a client's gain the key they were
-- stored under; their times are in milliseconds since 1970.
INSERT INTO records (kind, key, at, doc) SELECT 'api_key', id, NULL, doc FROM api_keys;
INSERT INTO records (kind, key, at, doc)
    SELECT 'api_key_hash', hash, NULL, json_build_object('hash', hash, 'id', id) FROM api_keys;
INSERT INTO records (kind, key, at, doc) SELECT 'webhook', id, NULL, doc FROM webhooks;
INSERT INTO records (kind, key, at, doc) SELECT 'feed_state', property || '/' || feed, NULL, doc FROM feeds;
INSERT INTO records (kind, key, at, doc)
    SELECT 'admin_password', 'admin', NULL, json_build_object('phc', value) FROM meta WHERE key = 'admin_password';
INSERT INTO records (kind, key, at, doc)
    SELECT 'admin_session', key, floor(extract(epoch FROM last_seen) * 1000)::bigint,
           (doc::jsonb || jsonb_build_object('keyHash', key))::json
    FROM admin_sessions;
INSERT INTO records (kind, key, at, doc)
    SELECT 'login_failures', client, floor(extract(epoch FROM last) * 1000)::bigint,
           (doc::jsonb || jsonb_build_object('client', client))::json
    FROM login_failures;
DELETE FROM meta WHERE key = 'admin_password';
DROP TABLE api_keys, webhooks, feeds, admin_sessions, login_failures;
",
    ),
];

/// Brings the database's schema up to `version` (the newest, for a server);
/// returns the versions it applied.
///
/// Holds an advisory lock for the whole run, from before `schema_migrations`
/// is created, so a second process starting at the same time waits, then
/// finds nothing left to do.
pub(super) fn migrate(conn: &mut Conn, version: i32) -> StoreResult<Vec<i32>> {
    conn.batch(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
    let applied = conn
        .batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations
               (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .and_then(|()| apply_missing(conn, version));
    let unlocked = conn.batch(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"));
    let applied = applied?;
    unlocked?;
    Ok(applied)
}

fn apply_missing(conn: &mut Conn, up_to: i32) -> StoreResult<Vec<i32>> {
    let rows = conn.query("SELECT version FROM schema_migrations", &[])?;
    let done: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    if let Some(newer) = done.iter().find(|v| !MIGRATIONS.iter().any(|(known, _)| known == *v)) {
        return Err(StoreError::Corrupt(format!(
            "the database has schema version {newer}, which this rental does not know: upgrade rental"
        )));
    }
    let mut applied = Vec::new();
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v <= up_to && !done.contains(v)) {
        conn.batch(&format!("BEGIN; {sql}; INSERT INTO schema_migrations (version) VALUES ({version}); COMMIT;"))
            .inspect_err(|_| {
                let _ = conn.batch("ROLLBACK");
            })?;
        applied.push(*version);
    }
    Ok(applied)
}
