//! Opening a redb file of an older schema: each migration, and the tables a
//! store of this version has.

use redb::{ReadableTable, WriteTransaction};

use super::read::{millis, reach_of};
use super::tables::{
    ADMIN_PASSWORD, ADMIN_SESSIONS, BLOCKS, BOOKING_ORDER, BOOKING_RECORDS, BOOKING_SEQS, BOOKINGS, CALENDAR,
    CALENDAR_REACH, CODE_KEYED_BOOKINGS, DELIVERIES, DELIVERY_DUE, DELIVERY_EVENTS, DELIVERY_FINISHED, DELIVERY_LEASES,
    FANNED_OUT, FEEDS, IDEMPOTENCY, IDEMPOTENCY_CREATED, KEY_HASHES, KEYS, LAPSING_HOLDS, LOGIN_FAILURES, META, OUTBOX,
    PENDING, PROPERTIES, RECORD_TIMES, RECORDS, SCHEMA_VERSION, UNFANNED, WEBHOOKS,
};
use super::{RedbStore, RedbTx, backend, decode};
use crate::admin::keys::ApiKey;
use crate::bookings::booking::Booking;
use crate::bookings::lifecycle;
use crate::channels::pull::FeedState;
use crate::outbox::delivery::{Delivery, DeliveryClaim};
use crate::outbox::webhook::Webhook;
use crate::properties::property::Property;
use crate::store::record::row_of;
use crate::store::{
    AdminPassword, ClientFailures, IdempotencyRecord, KeyHash, Record, RecordKind, RecordRow, StoreError, StoreResult,
    StoredSession, finished_key,
};

impl RedbStore {
    pub(super) fn create_tables(&self) -> StoreResult<()> {
        let tx = self.db.begin_write().map_err(backend)?;
        {
            let mut meta = tx.open_table(META).map_err(backend)?;
            let version = meta.get("schema_version").map_err(backend)?.map(|v| v.value().to_owned());
            match version.as_deref() {
                // A new store; or schema 9, to which 10 adds `booking_records` (its records stay where they are).
                None | Some("9") => drop(meta.insert("schema_version", SCHEMA_VERSION).map_err(backend)?),
                Some(SCHEMA_VERSION) => {}
                Some(old @ ("1" | "2" | "3" | "4" | "5" | "6" | "7" | "8")) => {
                    let before_6 = !matches!(old, "6" | "7" | "8");
                    if old == "1" {
                        index_lapsing_holds(&tx)?;
                        index_deliveries_and_idempotency(&tx)?;
                    }
                    if old == "1" || old == "2" {
                        mark_unfanned(&tx, &mut meta)?;
                    }
                    if before_6 && old != "4" {
                        tx.delete_table(PENDING).map_err(backend)?;
                    }
                    if before_6 && old != "5" {
                        measure_calendar_reach(&tx)?;
                    }
                    if before_6 {
                        number_bookings(&tx)?;
                    }
                    if !matches!(old, "7" | "8") {
                        move_to_records(&tx, &mut meta)?;
                    }
                    if old != "8" {
                        drop_lease_records(&tx)?;
                    }
                    move_properties_to_records(&tx)?;
                    meta.insert("schema_version", SCHEMA_VERSION).map_err(backend)?;
                }
                Some(other) => {
                    return Err(StoreError::Corrupt(format!("unknown schema version {other}")));
                }
            }
        }
        tx.open_table(BOOKINGS).map_err(backend)?;
        tx.open_table(BOOKING_SEQS).map_err(backend)?;
        tx.open_table(BOOKING_ORDER).map_err(backend)?;
        tx.open_table(CALENDAR).map_err(backend)?;
        tx.open_table(CALENDAR_REACH).map_err(backend)?;
        tx.open_table(LAPSING_HOLDS).map_err(backend)?;
        tx.open_table(BLOCKS).map_err(backend)?;
        tx.open_table(OUTBOX).map_err(backend)?;
        tx.open_table(UNFANNED).map_err(backend)?;
        tx.open_table(DELIVERIES).map_err(backend)?;
        tx.open_table(DELIVERY_DUE).map_err(backend)?;
        tx.open_table(DELIVERY_FINISHED).map_err(backend)?;
        tx.open_table(DELIVERY_EVENTS).map_err(backend)?;
        tx.open_table(DELIVERY_LEASES).map_err(backend)?;
        tx.open_table(RECORDS).map_err(backend)?;
        tx.open_table(BOOKING_RECORDS).map_err(backend)?;
        tx.open_table(RECORD_TIMES).map_err(backend)?;
        tx.commit().map_err(backend)
    }
}

/// Schema 6 to 7: the keys, webhooks, feed states, idempotency records and
/// the admin dashboard's password, sessions and failed logins become records
/// (`store::record`), and their tables go, with the delivery leases.
fn move_to_records(tx: &WriteTransaction, meta: &mut redb::Table<'_, &str, &str>) -> StoreResult<()> {
    let mut records = tx.open_table(RECORDS).map_err(backend)?;
    let mut times = tx.open_table(RECORD_TIMES).map_err(backend)?;
    let mut put = |kind: RecordKind, row: RecordRow| -> StoreResult<()> {
        if let Some(at) = row.at {
            times.insert((kind.name, at, row.key.as_str()), ()).map_err(backend)?;
        }
        records.insert((kind.name, row.key.as_str()), (row.at, row.doc.as_slice())).map_err(backend)?;
        Ok(())
    };
    // Their documents are already the records' own: moved as they are.
    for (def, kind) in [(KEYS, ApiKey::KIND), (WEBHOOKS, Webhook::KIND), (FEEDS, FeedState::KIND)] {
        for row in tx.open_table(def).map_err(backend)?.iter().map_err(backend)? {
            let (key, doc) = row.map_err(backend)?;
            put(kind, RecordRow { key: key.value().to_owned(), at: None, doc: doc.value().to_vec() })?;
        }
        tx.delete_table(def).map_err(backend)?;
    }
    for row in tx.open_table(KEY_HASHES).map_err(backend)?.iter().map_err(backend)? {
        let (hash, id) = row.map_err(backend)?;
        put(KeyHash::KIND, row_of(&KeyHash { hash: hash.value().to_owned(), id: id.value().to_owned() })?)?;
    }
    tx.delete_table(KEY_HASHES).map_err(backend)?;
    for row in tx.open_table(ADMIN_SESSIONS).map_err(backend)?.iter().map_err(backend)? {
        let (key_hash, doc) = row.map_err(backend)?;
        let stored = StoredSession { key_hash: key_hash.value().to_owned(), session: decode(doc.value())? };
        put(StoredSession::KIND, row_of(&stored)?)?;
    }
    tx.delete_table(ADMIN_SESSIONS).map_err(backend)?;
    for row in tx.open_table(LOGIN_FAILURES).map_err(backend)?.iter().map_err(backend)? {
        let (client, doc) = row.map_err(backend)?;
        let failures = ClientFailures { client: client.value().to_owned(), failures: decode(doc.value())? };
        put(ClientFailures::KIND, row_of(&failures)?)?;
    }
    tx.delete_table(LOGIN_FAILURES).map_err(backend)?;
    for row in tx.open_table(IDEMPOTENCY).map_err(backend)?.iter().map_err(backend)? {
        let record: IdempotencyRecord = decode(row.map_err(backend)?.1.value())?;
        put(IdempotencyRecord::KIND, row_of(&record)?)?;
    }
    tx.delete_table(IDEMPOTENCY).map_err(backend)?;
    tx.delete_table(IDEMPOTENCY_CREATED).map_err(backend)?;
    // A lease's owner was a dispatcher of the process that held the file
    // before; none runs now, so its leases hold nothing back.
    tx.delete_table(DELIVERY_LEASES).map_err(backend)?;
    if let Some(phc) = meta.remove(ADMIN_PASSWORD).map_err(backend)? {
        put(AdminPassword::KIND, row_of(&AdminPassword { phc: phc.value().to_owned() })?)?;
    }
    Ok(())
}

/// Schema 7 to 8: the delivery leases leave `records` for a table of their
/// own (`tables::DELIVERY_LEASES`). The records are dropped, not moved: a
/// lease lasts seconds and belonged to a dispatcher of the process that held
/// the file before, which no longer runs (a server voids them at start anyway).
fn drop_lease_records(tx: &WriteTransaction) -> StoreResult<()> {
    // Every key of the kind sorts below the first key of the next name up.
    let (kind, next) = (DeliveryClaim::KIND.name, format!("{}\0", DeliveryClaim::KIND.name));
    let mut records = tx.open_table(RECORDS).map_err(backend)?;
    records.retain_in((kind, "")..(next.as_str(), ""), |_, _| false).map_err(backend)?;
    let mut times = tx.open_table(RECORD_TIMES).map_err(backend)?;
    times.retain_in((kind, i64::MIN, "")..(next.as_str(), i64::MIN, ""), |_, ()| false).map_err(backend)?;
    Ok(())
}

/// Schema 8 to 9: the properties become records (`store::record`, kind
/// `property` under the slug) and their table goes. Each document is
/// already the record's own, so it moves as it is.
fn move_properties_to_records(tx: &WriteTransaction) -> StoreResult<()> {
    let mut records = tx.open_table(RECORDS).map_err(backend)?;
    for row in tx.open_table(PROPERTIES).map_err(backend)?.iter().map_err(backend)? {
        let (slug, doc) = row.map_err(backend)?;
        records.insert((Property::KIND.name, slug.value()), (None, doc.value())).map_err(backend)?;
    }
    tx.delete_table(PROPERTIES).map_err(backend)?;
    Ok(())
}

/// Schema 4 to 5: the longest entry of each property's calendar.
fn measure_calendar_reach(tx: &WriteTransaction) -> StoreResult<()> {
    let calendar = tx.open_table(CALENDAR).map_err(backend)?;
    let mut reaches = tx.open_table(CALENDAR_REACH).map_err(backend)?;
    for row in calendar.iter().map_err(backend)? {
        let (key, value) = row.map_err(backend)?;
        let ((slug, check_in, _), (check_out, ..)) = (key.value(), value.value());
        let nights = check_out.saturating_sub(check_in);
        if nights > reach_of(&reaches, slug)? {
            reaches.insert(slug, nights).map_err(backend)?;
        }
    }
    Ok(())
}

/// Schema 1 to 2: indexes the holds already stored, found among the pending bookings.
fn index_lapsing_holds(tx: &WriteTransaction) -> StoreResult<()> {
    let pending = tx.open_table(PENDING).map_err(backend)?;
    let bookings = tx.open_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    let mut holds = tx.open_table(LAPSING_HOLDS).map_err(backend)?;
    for row in pending.iter().map_err(backend)? {
        let (key, _) = row.map_err(backend)?;
        let code = key.value().1;
        let Some(row) = bookings.get(code).map_err(backend)? else { continue };
        let booking: Booking = decode(row.value())?;
        if lifecycle::may_lapse(&booking) {
            holds.insert((millis(booking.created_at), code), ()).map_err(backend)?;
        }
    }
    Ok(())
}

/// Schema 5 to 6: numbers the bookings in code order, into `booking_rows`
/// and `booking_seqs`, and drops the table keyed by code.
fn number_bookings(tx: &WriteTransaction) -> StoreResult<()> {
    let old = tx.open_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    let mut rows = tx.open_table(BOOKINGS).map_err(backend)?;
    let mut seqs = tx.open_table(BOOKING_SEQS).map_err(backend)?;
    for (seq, row) in (1..).zip(old.iter().map_err(backend)?) {
        let (code, booking) = row.map_err(backend)?;
        rows.insert(seq, booking.value()).map_err(backend)?;
        seqs.insert(code.value(), seq).map_err(backend)?;
    }
    drop(old);
    tx.delete_table(CODE_KEYED_BOOKINGS).map_err(backend)?;
    Ok(())
}

/// Schema 2 to 3: the events after the old fan-out mark are the ones not yet fanned out.
fn mark_unfanned(tx: &WriteTransaction, meta: &mut redb::Table<'_, &str, &str>) -> StoreResult<()> {
    let mark = meta.remove(FANNED_OUT).map_err(backend)?.map(|v| v.value().to_owned());
    let mark: u64 =
        mark.map_or(Ok(0), |v| v.parse().map_err(|_| StoreError::Corrupt("bad fan-out position".into())))?;
    let outbox = tx.open_table(OUTBOX).map_err(backend)?;
    let mut unfanned = tx.open_table(UNFANNED).map_err(backend)?;
    for row in outbox.range(mark + 1..).map_err(backend)? {
        unfanned.insert(row.map_err(backend)?.0.value(), ()).map_err(backend)?;
    }
    Ok(())
}

/// Schema 1 to 2: indexes the deliveries by when they finished and by event,
/// and the idempotency records by when they were made.
fn index_deliveries_and_idempotency(tx: &WriteTransaction) -> StoreResult<()> {
    let deliveries: Vec<Delivery> = RedbTx(tx).all_json(DELIVERIES)?;
    for delivery in &deliveries {
        let id = delivery.id.as_str();
        if let Some(at) = finished_key(delivery) {
            tx.open_table(DELIVERY_FINISHED).map_err(backend)?.insert((at, id), ()).map_err(backend)?;
        }
        tx.open_table(DELIVERY_EVENTS).map_err(backend)?.insert((delivery.event_seq, id), ()).map_err(backend)?;
    }
    let records: Vec<IdempotencyRecord> = RedbTx(tx).all_json(IDEMPOTENCY)?;
    let mut created = tx.open_table(IDEMPOTENCY_CREATED).map_err(backend)?;
    for record in &records {
        created.insert((millis(record.created_at), record.key.as_str()), ()).map_err(backend)?;
    }
    Ok(())
}
