//! Every table of the redb store and the keys of its `meta` table: the one
//! declaration the reads, the writes, the migrations and the log's replay use.

use redb::{TableDefinition, WriteTransaction};

use super::changes::Change;
use crate::store::StoreResult;

/// The version of the table layout below; bumped with a migration when it changes.
/// 2 added `lapsing_holds`, `delivery_finished`, `delivery_events` and `idempotency_created`;
/// 3 replaced the fan-out high-water mark with the `unfanned` set; 4 dropped
/// `pending`, whose rows were the calendar's held entries over again; 5
/// added `calendar_reach`; 6 keyed the bookings by a sequence number, with
/// `booking_seqs` from code to number; 7 moved the keys, webhooks, feed
/// states, idempotency records, admin password, sessions and failed logins
/// into `records` and dropped `delivery_leases`; 8 took the delivery leases
/// back out of `records` into `delivery_leases`; 9 moved the properties into
/// `records`.
pub(super) const SCHEMA_VERSION: &str = "10";

pub(super) const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
/// The `meta` key of the last outbox event fanned out to webhooks, up to schema 2.
pub(super) const FANNED_OUT: &str = "outbox_fanned_out";
/// Numbers of the outbox events not yet fanned out to webhooks (schema 3).
pub(super) const UNFANNED: TableDefinition<u64, ()> = TableDefinition::new("unfanned");
/// The `meta` key of the admin dashboard's password hash (a PHC string), up to schema 6.
pub(super) const ADMIN_PASSWORD: &str = "admin_password";
/// Slug -> property, up to schema 8; since 9 a property is a record.
pub(super) const PROPERTIES: TableDefinition<&str, &[u8]> = TableDefinition::new("properties");
/// Sequence number -> booking (schema 6). A new booking takes the next
/// number, so creations write the tree's last leaf, not a random one; a
/// change keeps the booking's number.
pub(super) const BOOKINGS: TableDefinition<u64, &[u8]> = TableDefinition::new("booking_rows");
/// Booking code -> its number in `booking_rows` (schema 6).
pub(super) const BOOKING_SEQS: TableDefinition<&str, u64> = TableDefinition::new("booking_seqs");
/// Code -> booking, up to schema 5.
pub(super) const CODE_KEYED_BOOKINGS: TableDefinition<&str, &[u8]> = TableDefinition::new("bookings");
/// (check-in day, code): the listing order.
pub(super) const BOOKING_ORDER: TableDefinition<(u32, &str), ()> = TableDefinition::new("booking_order");
/// (slug, check-in day, holder).
pub(super) type CalendarKey<'a> = (&'a str, u32, &'a str);
/// (check-out day, kind, guests, guest name).
pub(super) type CalendarValue<'a> = (u32, u8, u32, &'a str);
pub(super) const CALENDAR: TableDefinition<CalendarKey, CalendarValue> = TableDefinition::new("calendar");
/// Slug -> the most nights any calendar entry of the property has held (it
/// never shrinks): how far before a night its calendar is read (schema 5).
pub(super) const CALENDAR_REACH: TableDefinition<&str, u32> = TableDefinition::new("calendar_reach");
/// (slug, code) of every pending booking, up to schema 3. Since schema 4 the
/// pending bookings are the calendar's held entries: one tree less to write
/// per booking.
pub(super) const PENDING: TableDefinition<(&str, &str), ()> = TableDefinition::new("pending");
/// (created at in ms since 1970, code) of every hold a checkout TTL can expire.
pub(super) const LAPSING_HOLDS: TableDefinition<(u64, &str), ()> = TableDefinition::new("lapsing_holds");
pub(super) const BLOCKS: TableDefinition<&str, &[u8]> = TableDefinition::new("blocks");
/// API keys by id, up to schema 6.
pub(super) const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
/// SHA-256 of a key's secret -> key id, up to schema 6.
pub(super) const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("key_hashes");
/// Webhooks by id, up to schema 6.
pub(super) const WEBHOOKS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhooks");
pub(super) const OUTBOX: TableDefinition<u64, &[u8]> = TableDefinition::new("outbox");
pub(super) const IDEMPOTENCY: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency");
pub(super) const DELIVERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("deliveries");
/// (next attempt in ms since 1970, event number, delivery id) of every pending delivery.
pub(super) const DELIVERY_DUE: TableDefinition<(u64, u64, &str), ()> = TableDefinition::new("delivery_due");

/// (finished ms since 1970, delivery id) of every delivery that is over: what retention removes first.
pub(super) const DELIVERY_FINISHED: TableDefinition<(u64, &str), ()> = TableDefinition::new("delivery_finished");
/// (event number, delivery id) of every delivery: which events a delivery still needs.
pub(super) const DELIVERY_EVENTS: TableDefinition<(u64, &str), ()> = TableDefinition::new("delivery_events");
/// Delivery id -> (webhook id, owner, lease end in ms since 1970): the delivery
/// leases (within schema 2 to 6, and again from 8). A lease is written and
/// removed for every delivery sent; as a record it cost a read before each
/// write and two trees, and the webhook drain fell by a quarter (docs/DESIGN.md, "Records").
pub(super) const DELIVERY_LEASES: TableDefinition<&str, (&str, &str, u64)> = TableDefinition::new("delivery_leases");
/// (recorded ms since 1970, key) of every idempotency record.
pub(super) const IDEMPOTENCY_CREATED: TableDefinition<(u64, &str), ()> = TableDefinition::new("idempotency_created");

/// "slug/feed" -> the feed's state, up to schema 6.
pub(super) const FEEDS: TableDefinition<&str, &[u8]> = TableDefinition::new("feeds");
/// Admin sessions by hex SHA-256 of their id, up to schema 6.
pub(super) const ADMIN_SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("admin_sessions");
/// Failed logins in a row by client address, up to schema 6.
pub(super) const LOGIN_FAILURES: TableDefinition<&str, &[u8]> = TableDefinition::new("login_failures");

/// (kind, key) -> (time in ms since 1970, JSON document): the records
/// (`store::record`; schema 7).
pub(super) const RECORDS: TableDefinition<(&str, &str), RecordValue> = TableDefinition::new("records");
/// (booking sequence, kind, key) -> as in `records`: the records of a booking's
/// kinds ([`by_booking`](super::booking_records::by_booking)) in booking order,
/// so that a creation's records append beside each other (schema 10).
pub(super) const BOOKING_RECORDS: TableDefinition<(u64, &str, &str), RecordValue> =
    TableDefinition::new("booking_records");
/// A record's time (ms since 1970) and document.
pub(super) type RecordValue<'a> = (Option<i64>, &'a [u8]);
/// (kind, time in ms since 1970, key) of every record with a time.
pub(super) const RECORD_TIMES: TableDefinition<(&str, i64, &str), ()> = TableDefinition::new("record_times");

/// The `meta` key of the number of the first redo log record the last checkpoint did not hold.
pub(super) const REDO_FROM: &str = "redo_from";
/// The `meta` key of the store's id (hex), which its redo log's header repeats.
pub(super) const STORE_ID: &str = "store_id";
/// The `meta` key of the epoch of the store's redo log, which the log's header repeats.
pub(super) const REDO_EPOCH: &str = "redo_epoch";

/// How a change to one table is done again.
pub(super) type Replay = fn(&WriteTransaction, &Change<'_>) -> StoreResult<()>;

/// How a change to the table `name` is done again: every table a write
/// transaction changes, and the tables older schemas changed (`bookings`
/// up to 5, `properties` up to 8, ...): opening replays a log before it
/// migrates. A test checks that every table a store has is here.
pub(super) fn replayer(name: &str) -> Option<Replay> {
    Some(match name {
        "meta" => |tx, c| c.apply(tx, META),
        "unfanned" => |tx, c| c.apply(tx, UNFANNED),
        "properties" => |tx, c| c.apply(tx, PROPERTIES),
        "bookings" => |tx, c| c.apply(tx, CODE_KEYED_BOOKINGS),
        "booking_rows" => |tx, c| c.apply(tx, BOOKINGS),
        "booking_seqs" => |tx, c| c.apply(tx, BOOKING_SEQS),
        "booking_order" => |tx, c| c.apply(tx, BOOKING_ORDER),
        "calendar" => |tx, c| c.apply(tx, CALENDAR),
        "calendar_reach" => |tx, c| c.apply(tx, CALENDAR_REACH),
        "lapsing_holds" => |tx, c| c.apply(tx, LAPSING_HOLDS),
        "blocks" => |tx, c| c.apply(tx, BLOCKS),
        "keys" => |tx, c| c.apply(tx, KEYS),
        "key_hashes" => |tx, c| c.apply(tx, KEY_HASHES),
        "webhooks" => |tx, c| c.apply(tx, WEBHOOKS),
        "outbox" => |tx, c| c.apply(tx, OUTBOX),
        "idempotency" => |tx, c| c.apply(tx, IDEMPOTENCY),
        "deliveries" => |tx, c| c.apply(tx, DELIVERIES),
        "delivery_due" => |tx, c| c.apply(tx, DELIVERY_DUE),
        "delivery_finished" => |tx, c| c.apply(tx, DELIVERY_FINISHED),
        "delivery_events" => |tx, c| c.apply(tx, DELIVERY_EVENTS),
        "delivery_leases" => |tx, c| c.apply(tx, DELIVERY_LEASES),
        "idempotency_created" => |tx, c| c.apply(tx, IDEMPOTENCY_CREATED),
        "feeds" => |tx, c| c.apply(tx, FEEDS),
        "admin_sessions" => |tx, c| c.apply(tx, ADMIN_SESSIONS),
        "login_failures" => |tx, c| c.apply(tx, LOGIN_FAILURES),
        "records" => |tx, c| c.apply(tx, RECORDS),
        "booking_records" => |tx, c| c.apply(tx, BOOKING_RECORDS),
        "record_times" => |tx, c| c.apply(tx, RECORD_TIMES),
        _ => return None,
    })
}
