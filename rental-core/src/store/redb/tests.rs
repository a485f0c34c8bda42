//! The redb store's own tests: migrations from each older schema, and the
//! redo log across crashes, restored files and foreign logs.

use chrono::NaiveDate;
use redb::{TableHandle, WriteTransaction};

use super::tables::{
    BOOKING_SEQS, BOOKINGS, CALENDAR_REACH, CODE_KEYED_BOOKINGS, DELIVERY_EVENTS, DELIVERY_FINISHED, FANNED_OUT,
    LAPSING_HOLDS, META, PENDING, REDO_EPOCH, SCHEMA_VERSION, STORE_ID, UNFANNED,
};
use super::*;
use crate::bookings::booking::{Booking, BookingQuery};
use crate::demo;
use crate::store::{
    AdminPassword, IdempotencyRecord, ReadRecords, ReadTx, RecordKind, RecordRow, WriteRecords, WriteTx,
};

/// Lays the bookings out as schema 5 and before did: keyed by code, unnumbered.
pub(super) fn unnumber_bookings(tx: &WriteTransaction) {
    let seqs = tx.open_table(BOOKING_SEQS).unwrap();
    let rows = tx.open_table(BOOKINGS).unwrap();
    let mut old = tx.open_table(CODE_KEYED_BOOKINGS).unwrap();
    for row in seqs.iter().unwrap() {
        let (code, seq) = row.unwrap();
        old.insert(code.value(), rows.get(seq.value()).unwrap().unwrap().value()).unwrap();
    }
    drop((seqs, rows, old));
    assert!(tx.delete_table(BOOKINGS).unwrap() && tx.delete_table(BOOKING_SEQS).unwrap());
}

/// Writes `bookings` at `path`, then lays the file out as schema
/// `version` did, `older` adding or removing what that schema had.
fn written_by_schema(path: &Path, version: &str, bookings: &[&Booking], older: impl FnOnce(&WriteTransaction)) {
    let store = RedbStore::open(path).unwrap();
    let mut tx = store.write().unwrap();
    for booking in bookings {
        tx.put_booking(booking).unwrap();
    }
    tx.commit().unwrap();
    let tx = store.db.begin_write().unwrap();
    older(&tx);
    tx.open_table(META).unwrap().insert("schema_version", version).unwrap();
    unnumber_bookings(&tx);
    tx.commit().unwrap();
}

/// A store written by schema 1 (without the indexes schema 2 added) gets
/// its holds, finished deliveries and idempotency records indexed on open.
#[test]
fn opening_a_schema_1_store_indexes_what_it_already_has() {
    use crate::bookings::event::EventName;
    use crate::outbox::delivery::{Attempt, Delivery, record};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    let at = hold.created_at;
    let sent = Delivery::new("dlv_1".into(), "wh_1".into(), 1, EventName::BookingCreated, at);
    let ok = Attempt { at, status: Some(200), latency_ms: 1, error: None };
    let delivered = record(&sent, ok, &[]).delivery;
    let replay = IdempotencyRecord {
        key: "k1".into(),
        fingerprint: "f".into(),
        code: hold.code.clone(),
        response: hold.clone(),
        created_at: at,
    };
    {
        let store = RedbStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        tx.put_booking(&hold).unwrap();
        tx.put_delivery(&delivered).unwrap();
        tx.commit().unwrap();
        let tx = store.db.begin_write().unwrap();
        for table in [LAPSING_HOLDS, DELIVERY_FINISHED, DELIVERY_EVENTS] {
            assert!(tx.delete_table(table).unwrap(), "schema 2 has {}", table.name());
        }
        let json = serde_json::to_vec(&replay).unwrap();
        tx.open_table(super::tables::IDEMPOTENCY).unwrap().insert("k1", json.as_slice()).unwrap();
        tx.open_table(PENDING).unwrap().insert((hold.property.as_str(), hold.code.as_str()), ()).unwrap();
        tx.open_table(META).unwrap().insert("schema_version", "1").unwrap();
        unnumber_bookings(&tx);
        tx.commit().unwrap();
    }
    let store = RedbStore::open(&path).unwrap();
    let read = store.read().unwrap();
    let just_after = at + chrono::TimeDelta::milliseconds(1);
    assert_eq!(read.lapsing_holds(at, 10).unwrap(), vec![hold.code.clone()]);
    assert_eq!(read.pending_codes().unwrap(), vec![hold.code.clone()]);
    assert!(read.lapsing_holds(at - chrono::TimeDelta::milliseconds(1), 10).unwrap().is_empty());
    assert_eq!(read.finished_deliveries(just_after, 10).unwrap(), ["dlv_1"]);
    assert_eq!(read.first_delivered_event().unwrap(), Some(1));
    assert_eq!(read.idempotency_before(just_after, 10).unwrap(), ["k1"]);
}

/// A store written by schema 2 (a fan-out high-water mark) gets the events
/// after its mark, and only those, to fan out on open.
#[test]
fn opening_a_schema_2_store_keeps_the_events_after_the_mark_to_fan_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    let created = crate::bookings::event::Event::created(&hold, hold.created_at);
    {
        let store = RedbStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        tx.append_events(&[created.clone(), created.clone(), created]).unwrap();
        tx.commit().unwrap();
        let tx = store.db.begin_write().unwrap();
        assert!(tx.delete_table(UNFANNED).unwrap());
        let mut meta = tx.open_table(META).unwrap();
        meta.insert("schema_version", "2").unwrap();
        meta.insert(FANNED_OUT, "1").unwrap();
        drop(meta);
        tx.commit().unwrap();
    }
    let store = RedbStore::open(&path).unwrap();
    let seqs: Vec<u64> = store.read().unwrap().unfanned_events(10).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [2, 3]);
}

/// A store written by schema 3 loses its `pending` table on open, and its
/// pending bookings are still counted, from the calendar's held entries.
#[test]
fn opening_a_schema_3_store_drops_the_pending_table_and_keeps_the_pending_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let hold = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    let mut confirmed = demo::booking("BK-9T3K8W", "2027-01-04", "2027-01-08");
    confirmed.status = crate::bookings::booking::Status::Confirmed;
    written_by_schema(&path, "3", &[&hold, &confirmed], |tx| {
        tx.open_table(PENDING).unwrap().insert((hold.property.as_str(), hold.code.as_str()), ()).unwrap();
    });
    let store = RedbStore::open(&path).unwrap();
    let slug = hold.property.as_str();
    let read = store.read().unwrap();
    assert_eq!(read.pending_codes().unwrap(), vec![hold.code.clone()]);
    assert_eq!(read.pending_codes_of(slug).unwrap(), vec![hold.code.clone()]);
    assert_eq!((read.pending_count(slug).unwrap(), read.pending_counts(&[slug, "nowhere"]).unwrap()), (1, vec![1, 0]));
    let tables = store.db.begin_read().unwrap();
    assert!(matches!(tables.open_table(PENDING), Err(redb::TableError::TableDoesNotExist(_))));
}

/// A store written by schema 5 (bookings keyed by code) gets its bookings
/// numbered on open: each reads back by code and in the listing, a change
/// keeps its number, and a new booking takes the next one.
#[test]
fn opening_a_schema_5_store_numbers_its_bookings_and_new_ones_follow() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let first = demo::booking("BK-ZZZZZ1", "2026-12-20", "2026-12-27");
    let mut second = demo::booking("BK-22222A", "2027-01-04", "2027-01-08");
    written_by_schema(&path, "5", &[&first, &second], |_| {});
    let store = RedbStore::open(&path).unwrap();
    let codes = |store: &RedbStore| -> Vec<String> {
        let listing = store.read().unwrap().bookings(&BookingQuery { limit: 10, ..BookingQuery::default() });
        listing.unwrap().iter().map(|b| b.code.to_string()).collect()
    };
    assert_eq!(codes(&store), ["BK-ZZZZZ1", "BK-22222A"]);
    assert_eq!(store.read().unwrap().booking("BK-ZZZZZ1").unwrap(), Some(first.clone()));
    let third = demo::booking("BK-33333B", "2027-02-01", "2027-02-03");
    second.guests = 1;
    let mut tx = store.write().unwrap();
    tx.put_booking(&second).unwrap();
    tx.put_booking(&third).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let numbered = |code: &str| read.numbered_booking(code).unwrap().unwrap();
    assert_eq!(numbered("BK-22222A"), (1, second.clone()), "numbered in code order, kept on a change");
    assert_eq!(numbered("BK-ZZZZZ1"), (2, first));
    assert_eq!(numbered("BK-33333B"), (3, third));
    let tables = store.db.begin_read().unwrap();
    assert!(matches!(tables.open_table(CODE_KEYED_BOOKINGS), Err(redb::TableError::TableDoesNotExist(_))));
}

/// The nights of a property's stays, seen from a night: its calendar is
/// read from its longest stay before that night, and no further.
fn nights_seen_from(store: &RedbStore, night: &str) -> Vec<String> {
    let from = NaiveDate::parse_from_str(night, "%Y-%m-%d").unwrap();
    let read = store.read().unwrap();
    let seen = read.calendar("sea-view", from, from.succ_opt().unwrap()).unwrap();
    seen.iter().map(|e| e.holder.to_string()).collect()
}

/// A stay is found from its last night, however long it is and however
/// short the stays after it; a schema 4 store measures its stays on open.
#[test]
fn a_calendar_reads_back_as_far_as_its_longest_stay_also_after_an_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let long = demo::booking("BK-LONG20", "2026-12-01", "2026-12-21");
    let short = demo::booking("BK-SHORT1", "2026-12-25", "2026-12-26");
    {
        let store = RedbStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        tx.put_booking(&long).unwrap();
        tx.put_booking(&short).unwrap();
        tx.commit().unwrap();
        assert_eq!(nights_seen_from(&store, "2026-12-20"), ["BK-LONG20"]);
        assert!(nights_seen_from(&store, "2026-12-21").is_empty());
        let tx = store.db.begin_write().unwrap();
        assert!(tx.delete_table(CALENDAR_REACH).unwrap(), "schema 5 has calendar_reach");
        tx.open_table(META).unwrap().insert("schema_version", "4").unwrap();
        unnumber_bookings(&tx);
        tx.commit().unwrap();
    }
    let store = RedbStore::open(&path).unwrap();
    assert_eq!(nights_seen_from(&store, "2026-12-20"), ["BK-LONG20"], "measured on open");
    assert_eq!(nights_seen_from(&store, "2026-12-25"), ["BK-SHORT1"]);
}

/// What a crash leaves, opened: the files of a store copied while it is open.
fn crash_copy(from: &Path, to: &Path) -> RedbStore {
    std::fs::copy(from, to).unwrap();
    std::fs::copy(redo_path(from), redo_path(to)).unwrap();
    RedbStore::open(to).unwrap()
}

/// What a few reads see, to compare two stores by.
fn contents(store: &RedbStore) -> String {
    let read = store.read().unwrap();
    let from = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let listing = read.bookings(&BookingQuery { limit: 10, ..BookingQuery::default() }).unwrap();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        listing,
        read.calendar("sea-view", from, NaiveDate::MAX).unwrap(),
        read.events_after(0, 10).unwrap(),
        read.pending_codes().unwrap(),
        read.get::<AdminPassword>(AdminPassword::KEY).unwrap(),
    )
}

/// Commits between checkpoints are in the redo log, not yet in redb's
/// file: after a crash, opening the store replays them, rows removed too.
#[test]
fn a_crash_between_checkpoints_keeps_every_commit_the_redo_log_holds() {
    use crate::bookings::booking::Status;
    use crate::bookings::event::Event;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    store.log().checkpoint_every(std::time::Duration::MAX);
    let kept = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    let mut cancelled = demo::booking("BK-3JD8PA", "2027-01-04", "2027-01-06");
    let mut tx = store.write().unwrap();
    tx.put_booking(&kept).unwrap();
    tx.put_booking(&cancelled).unwrap();
    tx.append_events(&[Event::created(&kept, kept.created_at)]).unwrap();
    tx.put(&AdminPassword { phc: "$argon2id$v=19$kept".into() }).unwrap();
    tx.commit().unwrap();
    cancelled.status = Status::Cancelled;
    let mut tx = store.write().unwrap();
    tx.put_booking(&cancelled).unwrap();
    tx.commit().unwrap();
    let before = contents(&store);
    assert!(before.contains("BK-7Q4M2X") && before.contains("Cancelled") && before.contains("kept"));

    let redb_alone = dir.path().join("redb-alone.redb");
    std::fs::copy(&path, &redb_alone).unwrap();
    let unsynced = contents(&RedbStore::open(&redb_alone).unwrap());
    assert!(!unsynced.contains("BK-7Q4M2X"), "without its log the file lacks the commits: {unsynced}");

    let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
    assert_eq!(contents(&reopened), before);
    assert!(!reopened.log().holds_records(), "the replay is checkpointed");
}

/// A schema 5 server that crashed with a booking only in its redo log:
/// the next version replays it into the table keyed by code, then
/// numbers it with the rest, so the upgrade loses nothing.
#[test]
fn an_upgrade_after_a_crash_replays_the_old_log_before_numbering() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    let durable = demo::booking("BK-ZZZZZ1", "2026-12-20", "2026-12-27");
    let logged = demo::booking("BK-22222A", "2027-01-04", "2027-01-08");
    store.log().checkpoint_every(std::time::Duration::ZERO);
    let mut tx = store.write().unwrap();
    tx.put_booking(&durable).unwrap();
    tx.commit().unwrap();
    let tx = store.db.begin_write().unwrap();
    tx.open_table(META).unwrap().insert("schema_version", "5").unwrap();
    unnumber_bookings(&tx);
    tx.commit().unwrap();
    // What schema 5 logged for a creation: its row in `bookings`, by code.
    store.log().checkpoint_every(std::time::Duration::MAX);
    let tx = store.write().unwrap();
    tx.0.view(|v| {
        v.table(CODE_KEYED_BOOKINGS).unwrap().insert("BK-22222A", encode(&logged).unwrap().as_slice()).unwrap();
    });
    tx.commit().unwrap();

    let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
    let read = reopened.read().unwrap();
    let numbered = |code: &str| read.numbered_booking(code).unwrap().unwrap();
    assert_eq!(numbered("BK-22222A"), (1, logged));
    assert_eq!(numbered("BK-ZZZZZ1"), (2, durable));
}

/// A checkpoint makes what the log held durable in redb's file and starts
/// the log again; records it already holds are not done again.
#[test]
fn a_checkpoint_starts_the_log_again_and_a_crash_after_it_replays_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    store.log().checkpoint_every(std::time::Duration::MAX);
    let mut booking = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    let mut tx = store.write().unwrap();
    tx.put_booking(&booking).unwrap();
    tx.commit().unwrap();
    let logged = std::fs::read(redo_path(&path)).unwrap();
    assert!(!logged.is_empty());

    store.log().checkpoint_every(std::time::Duration::ZERO);
    booking.status = crate::bookings::booking::Status::Cancelled;
    let mut tx = store.write().unwrap();
    tx.put_booking(&booking).unwrap();
    tx.commit().unwrap();
    assert!(!store.log().holds_records(), "the checkpoint started the log again");

    // The record stays in the file until overwritten, but it is older than the checkpoint.
    assert_eq!(std::fs::read(redo_path(&path)).unwrap()[..logged.len()], logged[..]);
    let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
    let read = reopened.read().unwrap();
    let status = read.booking("BK-7Q4M2X").unwrap().map(|b| b.status);
    assert_eq!(
        status,
        Some(crate::bookings::booking::Status::Cancelled),
        "the old record, a pending booking, is not replayed"
    );
    assert!(read.pending_codes().unwrap().is_empty());
}

/// The refusal a failed open or commit carries.
fn refusal(result: StoreResult<impl std::fmt::Debug>) -> RedoError {
    let err = result.expect_err("refused");
    RedoError::of(&err).cloned().unwrap_or_else(|| panic!("not the log's refusal: {err}"))
}

/// A log whose failed commit could not be taken back takes no commit,
/// not even one due to be a checkpoint, until the store is reopened.
#[test]
fn a_broken_log_refuses_commits_and_checkpoints_until_the_store_is_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    store.log().break_it();
    let booking = demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27");
    for every in [std::time::Duration::ZERO, std::time::Duration::MAX] {
        store.log().checkpoint_every(every);
        let mut tx = store.write().unwrap();
        tx.put_booking(&booking).unwrap();
        assert_eq!(refusal(tx.commit()), RedoError::Broken, "checkpoint due: {}", every.is_zero());
    }
    drop(store);
    let store = RedbStore::open(&path).unwrap();
    assert_eq!(store.read().unwrap().booking("BK-7Q4M2X").unwrap(), None);
    let mut tx = store.write().unwrap();
    tx.put_booking(&booking).unwrap();
    tx.commit().unwrap();
}

/// Writes a booking per code in `codes`, each its own commit, with a
/// checkpoint before the first when `checkpoint_first`.
fn commit_bookings(store: &RedbStore, codes: &[&str], checkpoint_first: bool) {
    for (i, code) in codes.iter().enumerate() {
        let due = checkpoint_first && i == 0;
        store.log().checkpoint_every(if due { std::time::Duration::ZERO } else { std::time::Duration::MAX });
        let mut tx = store.write().unwrap();
        tx.put_booking(&demo::booking(code, "2026-12-20", "2026-12-21")).unwrap();
        tx.commit().unwrap();
    }
}

/// A `rental.redb` restored from before the last checkpoint, beside the
/// current log: the records it needs were overwritten, so it does not open.
#[test]
fn an_older_file_beside_a_newer_log_is_refused_for_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    commit_bookings(&store, &["BK-AAAAA1"], true);
    commit_bookings(&store, &["BK-AAAAA2", "BK-AAAAA3"], true);
    let older = dir.path().join("older.redb");
    std::fs::copy(&path, &older).unwrap();
    commit_bookings(&store, &["BK-AAAAA4", "BK-AAAAA5"], true);
    std::fs::copy(redo_path(&path), redo_path(&older)).unwrap();
    drop(store);
    assert_eq!(refusal(RedbStore::open(&older)), RedoError::Gap { redo_from: 0, first: 1 });
}

/// Another store's log, or a log beside a file that lost everything
/// (redb 4.5 could open a damaged file as empty), is not replayed.
#[test]
fn a_log_is_replayed_only_onto_its_own_store() {
    let dir = tempfile::tempdir().unwrap();
    let (mine, theirs) = (dir.path().join("mine.redb"), dir.path().join("theirs.redb"));
    for path in [&mine, &theirs] {
        let store = RedbStore::open(path).unwrap();
        store.log().checkpoint_every(std::time::Duration::MAX);
        commit_bookings(&store, &["BK-AAAAA1"], false);
    }
    let theirs_log = std::fs::read(redo_path(&theirs)).unwrap();
    std::fs::write(redo_path(&mine), &theirs_log).unwrap();
    assert!(matches!(refusal(RedbStore::open(&mine)), RedoError::ForeignLog { .. }));
    std::fs::remove_file(&theirs).unwrap();
    let emptied = refusal(RedbStore::open(&theirs));
    assert!(matches!(&emptied, RedoError::ForeignLog { file, .. } if file.starts_with("none")), "{emptied}");
}

/// A log written before headers opens when its records past the
/// checkpoint start at `redo_from`, is replayed, and gets a header.
#[test]
fn a_log_without_a_header_is_replayed_and_given_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let store = RedbStore::open(&path).unwrap();
    commit_bookings(&store, &["BK-AAAAA1", "BK-AAAAA2"], false);
    let copy = dir.path().join("copy.redb");
    std::fs::copy(&path, &copy).unwrap();
    let log = std::fs::read(redo_path(&path)).unwrap();
    drop(store);
    std::fs::write(redo_path(&copy), &log[usize::try_from(redo::HEADER_BYTES).unwrap()..]).unwrap();
    let db = Database::create(&copy).unwrap();
    let tx = db.begin_write().unwrap();
    let mut meta = tx.open_table(META).unwrap();
    assert!(meta.remove(STORE_ID).unwrap().is_some() && meta.remove(REDO_EPOCH).unwrap().is_some());
    drop(meta);
    tx.commit().unwrap();
    drop(db);

    let store = RedbStore::open(&copy).unwrap();
    assert!(store.read().unwrap().booking("BK-AAAAA2").unwrap().is_some());
    assert_eq!(std::fs::read(redo_path(&copy)).unwrap()[..8], *b"rentredo");
}

/// Every table a store has can be replayed from the log: a table added
/// without its line in `tables::replayer` fails here, not after a crash.
#[test]
fn every_table_a_store_has_is_replayed_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let read = store.db.begin_read().unwrap();
    let names: Vec<String> = read.list_tables().unwrap().map(|t| t.name().to_owned()).collect();
    assert!(names.len() >= 15, "{names:?}");
    let missing: Vec<&String> = names.iter().filter(|name| tables::replayer(name).is_none()).collect();
    assert!(missing.is_empty(), "tables the log cannot replay: {missing:?}");
}

/// What a schema 6 file held outside the bookings, made through the engine on
/// a memory store: a key and its secret, a webhook, a feed's state, the admin
/// password, a session and a locked-out client.
struct Schema6Records {
    key: crate::admin::keys::ApiKey,
    secret: String,
    webhook: crate::outbox::webhook::Webhook,
    feed: crate::channels::pull::FeedState,
    phc: String,
    session: crate::admin::admin_session::AdminSession,
    failures: crate::admin::admin_session::LoginFailures,
}

const LAYOUT_NOW: &str = "2027-03-01T09:00:00Z";

fn schema_6_records() -> Schema6Records {
    let now: chrono::DateTime<chrono::Utc> = LAYOUT_NOW.parse().unwrap();
    let rental = crate::Rental::new(crate::MemoryStore::new())
        .with_clock(std::sync::Arc::new(crate::basics::clock::ManualClock::new(now)));
    let new = rental.admin().create_key("website", &[crate::admin::keys::Scope::Read]).unwrap();
    let webhook = rental
        .admin()
        .add_webhook("https://example.com/hook", crate::outbox::webhook::Subscription::parse("*").unwrap(), None)
        .unwrap();
    rental.admin().set_admin_password("correct horse battery").unwrap();
    let phc = rental.store().read().unwrap().get::<AdminPassword>(AdminPassword::KEY).unwrap().unwrap().phc;
    let feed = crate::channels::pull::FeedState::new(
        crate::basics::ids::Slug::parse("sea-view").unwrap(),
        crate::basics::ids::Source::parse("airbnb").unwrap(),
    );
    let session = crate::admin::admin_session::AdminSession { csrf: "csrf".into(), last_seen: now, flash: None };
    let failures = (0..6).fold(None, |f, _| Some(crate::admin::admin_session::LoginFailures::and_one(f, now))).unwrap();
    Schema6Records { key: new.key, secret: new.secret, webhook, feed, phc, session, failures }
}

/// A store written by schema 6 (a table per kind) has its keys, webhooks,
/// feed states and admin records moved into `records` on open, where the
/// engine finds each; the old tables are gone.
#[test]
fn opening_a_schema_6_store_moves_its_keys_webhooks_feeds_and_admin_records_into_records() {
    use super::tables::{ADMIN_PASSWORD, ADMIN_SESSIONS, FEEDS, KEY_HASHES, KEYS, LOGIN_FAILURES, WEBHOOKS};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let old = schema_6_records();
    written_by_schema(&path, "6", &[], |tx| {
        let json = |v: &dyn erased::Json| v.bytes();
        let hash = crate::admin::keys::hash_secret(&old.secret);
        tx.open_table(KEYS).unwrap().insert(old.key.id.as_str(), json(&old.key).as_slice()).unwrap();
        tx.open_table(KEY_HASHES).unwrap().insert(hash.as_str(), old.key.id.as_str()).unwrap();
        tx.open_table(WEBHOOKS).unwrap().insert(old.webhook.id.as_str(), json(&old.webhook).as_slice()).unwrap();
        tx.open_table(FEEDS).unwrap().insert("sea-view/airbnb", json(&old.feed).as_slice()).unwrap();
        tx.open_table(ADMIN_SESSIONS).unwrap().insert("session-hash", json(&old.session).as_slice()).unwrap();
        tx.open_table(LOGIN_FAILURES).unwrap().insert("10.0.0.9", json(&old.failures).as_slice()).unwrap();
        tx.open_table(META).unwrap().insert(ADMIN_PASSWORD, old.phc.as_str()).unwrap();
    });
    let now: chrono::DateTime<chrono::Utc> = LAYOUT_NOW.parse().unwrap();
    let rental = crate::Rental::new(RedbStore::open(&path).unwrap())
        .with_clock(std::sync::Arc::new(crate::basics::clock::ManualClock::new(now)));
    assert_eq!(rental.admin().keys().unwrap(), std::slice::from_ref(&old.key));
    assert_eq!(rental.admin().authenticate(&old.secret).unwrap().map(|k| k.id), Some(old.key.id.clone()));
    assert_eq!(rental.admin().webhooks().unwrap(), std::slice::from_ref(&old.webhook));
    assert_eq!(rental.worker().feed_states().unwrap(), std::slice::from_ref(&old.feed));
    assert!(rental.worker().verify_admin_password("correct horse battery").unwrap());
    let idle = chrono::TimeDelta::hours(1);
    assert_eq!(rental.worker().admin_session("session-hash", idle, now).unwrap(), Some(old.session.clone()));
    assert!(rental.worker().login_wait("10.0.0.9", now).unwrap().is_some(), "the client still waits");
    // The sessions' time index came along: an idle one is swept.
    rental.worker().start_admin_session("other", "csrf", idle, now + idle + idle).unwrap();
    assert_eq!(rental.worker().admin_session("session-hash", idle * 10, now).unwrap(), None);

    let tables = rental.store().db.begin_read().unwrap();
    let names: Vec<String> = tables.list_tables().unwrap().map(|t| t.name().to_owned()).collect();
    for gone in ["keys", "key_hashes", "webhooks", "feeds", "admin_sessions", "login_failures"] {
        assert!(!names.iter().any(|n| n == gone), "{gone} is still there: {names:?}");
    }
    let meta = tables.open_table(META).unwrap();
    assert!(meta.get(ADMIN_PASSWORD).unwrap().is_none());
    assert_eq!(meta.get("schema_version").unwrap().unwrap().value(), SCHEMA_VERSION);
}

/// A schema 7 server that crashed: one property in its `properties` table,
/// another, written later, only in its redo log. The next version replays
/// the log into the old table, then moves both into records, where every
/// read finds them; the table is gone.
#[test]
fn opening_a_schema_7_store_moves_its_properties_into_records_the_logged_one_too() {
    use super::tables::PROPERTIES;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let [mut durable, mut logged, _]: [crate::properties::property::Property; 3] =
        demo::properties().try_into().unwrap();
    durable.name = "Durable".into();
    logged.active = false;
    let store = RedbStore::open(&path).unwrap();
    store.log().checkpoint_every(std::time::Duration::ZERO);
    let tx = store.write().unwrap();
    tx.0.view(|v| {
        v.table(PROPERTIES).unwrap().insert(durable.slug.as_str(), encode(&durable).unwrap().as_slice()).unwrap();
    });
    tx.0.view(|v| v.table(META).unwrap().insert("schema_version", "7").unwrap());
    tx.commit().unwrap();
    // What schema 7 logged for a property's change: its row in `properties`.
    store.log().checkpoint_every(std::time::Duration::MAX);
    let tx = store.write().unwrap();
    tx.0.view(|v| {
        v.table(PROPERTIES).unwrap().insert(logged.slug.as_str(), encode(&logged).unwrap().as_slice()).unwrap();
    });
    tx.commit().unwrap();

    let reopened = crash_copy(&path, &dir.path().join("copy.redb"));
    let read = reopened.read().unwrap();
    assert_eq!(read.property(durable.slug.as_str()).unwrap().as_ref(), Some(&durable));
    assert_eq!(read.property(logged.slug.as_str()).unwrap().as_ref(), Some(&logged), "replayed, then moved");
    let mut both = vec![durable, logged];
    both.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
    assert_eq!(read.properties().unwrap(), both, "by slug");
    drop(read);
    let tables = reopened.db.begin_read().unwrap();
    let names: Vec<String> = tables.list_tables().unwrap().map(|t| t.name().to_owned()).collect();
    assert!(!names.iter().any(|n| n == "properties"), "{names:?}");
    assert_eq!(tables.open_table(META).unwrap().get("schema_version").unwrap().unwrap().value(), SCHEMA_VERSION);
}

/// A record of a kind whose name sorts right after the leases' (and whose
/// time index rows sit right after theirs), which the lease step must keep.
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Neighbour {
    id: String,
    at: chrono::DateTime<chrono::Utc>,
}

impl crate::store::Record for Neighbour {
    const KIND: crate::store::RecordKind = crate::store::RecordKind { name: "delivery_lease_", per_property: false };
    fn key(&self) -> String {
        self.id.clone()
    }
    fn at(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        Some(self.at)
    }
}

/// A store written by schema 7 (delivery leases as records) drops its lease
/// records on open, keeping every other record; leases from then on go to the
/// lease table, none to the records.
#[test]
fn opening_a_schema_7_store_drops_its_lease_records_and_leases_go_to_their_own_table() {
    use crate::outbox::delivery::DeliveryClaim as Lease;
    use crate::store::Record;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    let now: chrono::DateTime<chrono::Utc> = LAYOUT_NOW.parse().unwrap();
    let lease = |id: &str| Lease {
        delivery_id: id.into(),
        webhook_id: "wh_1".into(),
        lease: crate::lease::Lease::new("run-1", now),
    };
    let neighbour = Neighbour { id: "n1".into(), at: now };
    let password = AdminPassword { phc: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into() };
    {
        let store = RedbStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        // What schema 7's default methods wrote: the leases as records.
        tx.put(&lease("dlv_1")).unwrap();
        tx.put(&lease("dlv_2")).unwrap();
        tx.put(&neighbour).unwrap();
        tx.put(&password).unwrap();
        tx.commit().unwrap();
        let tx = store.db.begin_write().unwrap();
        assert!(tx.delete_table(tables::DELIVERY_LEASES).unwrap(), "schema 8 has delivery_leases");
        tx.open_table(META).unwrap().insert("schema_version", "7").unwrap();
        tx.commit().unwrap();
        let read = store.read().unwrap();
        assert_eq!(read.records(&Lease::KIND, "", "", usize::MAX).unwrap().len(), 2, "laid out as schema 7");
    }

    let store = RedbStore::open(&path).unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.delivery_leases().unwrap(), vec![]);
    assert_eq!(read.records(&Lease::KIND, "", "", usize::MAX).unwrap(), vec![]);
    assert_eq!(read.records_due(&Lease::KIND, i64::MAX, usize::MAX).unwrap(), vec![]);
    assert_eq!(read.get::<Neighbour>("n1").unwrap(), Some(Neighbour { id: "n1".into(), at: now }));
    assert_eq!(read.due::<Neighbour>(now, 10).unwrap().len(), 1, "its time index row is kept");
    assert_eq!(read.get::<AdminPassword>(AdminPassword::KEY).unwrap(), Some(password));
    let meta = read.0.open_table(META).unwrap();
    assert_eq!(meta.get("schema_version").unwrap().unwrap().value(), tables::SCHEMA_VERSION);
    drop((meta, read));

    let mut tx = store.write().unwrap();
    tx.put_lease(&lease("dlv_3")).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.delivery_leases().unwrap(), vec![lease("dlv_3")]);
    assert_eq!(read.records(&Lease::KIND, "", "", usize::MAX).unwrap(), vec![], "not a record");
    assert_eq!(redb::ReadableTableMetadata::len(&read.0.open_table(tables::DELIVERY_LEASES).unwrap()).unwrap(), 1);
}

mod erased {
    /// A value's JSON, whatever its type.
    pub(super) trait Json {
        fn bytes(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Json for T {
        fn bytes(&self) -> Vec<u8> {
            serde_json::to_vec(self).unwrap()
        }
    }
}

#[cfg(unix)]
#[test]
fn a_new_data_directory_and_its_store_files_are_the_owner_s_alone() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    drop(RedbStore::open_dir(&dir).unwrap());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(FILE_NAME)), 0o600);
    assert_eq!(mode(&dir.join("rental.redb.redo")), 0o600);
    // Opening again keeps them so, and a directory the owner made wider is left as it is.
    drop(RedbStore::open_dir(&dir).unwrap());
    assert_eq!(mode(&dir.join(FILE_NAME)), 0o600);
}

/// A write transaction reads a property through the store's memo of decoded
/// properties: a property changed since (by any transaction) reads as changed.
#[test]
fn a_write_transaction_reads_each_property_as_last_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut sea_view = demo::sea_view();
    let mut tx = store.write().unwrap();
    tx.put_property(&sea_view).unwrap();
    tx.commit().unwrap();
    for name in ["Sea View", "Sea View, renamed", "Sea View, renamed again"] {
        sea_view.name = name.into();
        let mut tx = store.write().unwrap();
        tx.put_property(&sea_view).unwrap();
        assert_eq!(tx.property("sea-view").unwrap().unwrap().name, name, "read in the writing transaction");
        tx.commit().unwrap();
        let tx = store.write().unwrap();
        assert_eq!(tx.property("sea-view").unwrap().unwrap(), sea_view, "read in the next write transaction");
        drop(tx);
        assert_eq!(store.read().unwrap().property("sea-view").unwrap().unwrap(), sea_view);
    }
    assert!(store.write().unwrap().property("nowhere").unwrap().is_none());
}

/// A write transaction lends each kept table once at a time, as redb opens a
/// table once at a time; the rows written through it across calls commit.
#[test]
fn a_kept_table_is_lent_once_at_a_time_and_its_rows_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut tx = store.write().unwrap();
    tx.0.view(|v| {
        let first = v.table(BOOKING_SEQS).unwrap();
        assert!(v.table(BOOKING_SEQS).is_err(), "a second loan while the first is out");
        assert!(v.table(CALENDAR_REACH).is_ok(), "another table of the same key type");
        drop(first);
        v.table(BOOKING_SEQS).unwrap().insert("BK-AAAAAA", 7).unwrap();
    });
    tx.0.view(|v| v.table(BOOKING_SEQS).unwrap().insert("BK-BBBBBB", 8).unwrap());
    tx.put_booking(&demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27")).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let seqs = read.0.open_table(BOOKING_SEQS).unwrap();
    assert_eq!(seqs.get("BK-BBBBBB").unwrap().map(|v| v.value()), Some(8));
    assert_eq!(seqs.get("BK-AAAAAA").unwrap().map(|v| v.value()), Some(7));
    assert!(read.booking("BK-7Q4M2X").unwrap().is_some());
}

/// A payment record kind, as the records tests below write it.
const PAYMENT: RecordKind = RecordKind { name: "payment", per_property: true };

/// A payment record under `key`, found at `at`.
fn payment_row(key: &str, at: i64) -> RecordRow {
    RecordRow { key: key.into(), at: Some(at), doc: br#"{"n":1}"#.to_vec() }
}

/// How many rows `records` and `booking_records` hold.
fn record_rows(read: &RedbTx<ReadTransaction>) -> (u64, u64) {
    use redb::ReadableTableMetadata;
    (
        read.0.open_table(tables::RECORDS).unwrap().len().unwrap(),
        read.0.open_table(tables::BOOKING_RECORDS).unwrap().len().unwrap(),
    )
}

/// A booking's records go under its sequence number (`booking_records`), one
/// written before its booking (as before schema 10) stays in `records`, and
/// both read back as one: a booking's list in key order, the kind's list
/// across bookings each row once, page by page, the time index, the removal.
#[test]
fn a_booking_s_records_are_kept_in_booking_order_and_read_with_the_older_ones() {
    let (payment, row) = (PAYMENT, payment_row);
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut tx = store.write().unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2A/pay_1", 30)).unwrap();
    tx.put_booking(&demo::booking("BK-7Q4M2A", "2026-12-20", "2026-12-27")).unwrap();
    tx.put_booking(&demo::booking("BK-7Q4M2B", "2027-01-20", "2027-01-27")).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2A/pay_2", 20)).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2B/pay_1", 10)).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2A/pay_1", 40)).unwrap();
    tx.commit().unwrap();

    let read = store.read().unwrap();
    assert_eq!(record_rows(&read), (1, 2), "the older row stays where it was");
    let keys = |rows: Vec<RecordRow>| rows.into_iter().map(|r| r.key).collect::<Vec<_>>();
    assert_eq!(
        keys(read.records(&payment, "sea-view/BK-7Q4M2A/", "", 10).unwrap()),
        ["sea-view/BK-7Q4M2A/pay_1", "sea-view/BK-7Q4M2A/pay_2"]
    );
    assert_eq!(read.record(&payment, "sea-view/BK-7Q4M2A/pay_1").unwrap().unwrap().at, Some(40));
    let mut paged = Vec::new();
    let mut after = String::new();
    while let [next] = read.records(&payment, "", &after, 1).unwrap().as_slice() {
        after.clone_from(&next.key);
        paged.push(next.key.clone());
    }
    assert_eq!(paged, ["sea-view/BK-7Q4M2A/pay_1", "sea-view/BK-7Q4M2A/pay_2", "sea-view/BK-7Q4M2B/pay_1"]);
    assert_eq!(keys(read.records(&payment, "sea-view/", "", 10).unwrap()).len(), 3);
    assert_eq!(
        keys(read.records_due(&payment, 35, 10).unwrap()),
        ["sea-view/BK-7Q4M2B/pay_1", "sea-view/BK-7Q4M2A/pay_2"]
    );
    drop(read);

    let mut tx = store.write().unwrap();
    for key in ["sea-view/BK-7Q4M2A/pay_1", "sea-view/BK-7Q4M2A/pay_2", "sea-view/BK-7Q4M2B/pay_1"] {
        assert!(tx.remove_record(&payment, key).unwrap());
    }
    assert!(!tx.remove_record(&payment, "sea-view/BK-7Q4M2B/pay_1").unwrap());
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.records(&payment, "", "", 10).unwrap(), vec![]);
    assert_eq!(read.records_due(&payment, i64::MAX, 10).unwrap(), vec![]);
    drop((read, store));

    // Reopened, a store still finds an older row in `records` and updates it there.
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut tx = store.write().unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2C/pay_1", 10)).unwrap();
    tx.commit().unwrap();
    drop(store);
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut tx = store.write().unwrap();
    tx.insert_booking(&demo::booking("BK-7Q4M2C", "2027-02-20", "2027-02-27")).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2C/pay_1", 50)).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(record_rows(&read), (1, 0), "the row is updated where it is");
    assert_eq!(read.record(&payment, "sea-view/BK-7Q4M2C/pay_1").unwrap().unwrap().at, Some(50));
}

#[test]
fn a_new_store_puts_the_records_of_a_booking_it_just_inserted_under_that_booking() {
    let (payment, row) = (PAYMENT, payment_row);
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    let mut tx = store.write().unwrap();
    tx.insert_booking(&demo::booking("BK-7Q4M2A", "2026-12-20", "2026-12-27")).unwrap();
    tx.insert_booking(&demo::booking("BK-7Q4M2B", "2027-01-20", "2027-01-27")).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2B/pay_1", 10)).unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2A/pay_1", 20)).unwrap();
    tx.commit().unwrap();
    let mut tx = store.write().unwrap();
    tx.put_record(&payment, &row("sea-view/BK-7Q4M2A/pay_1", 30)).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let kept: Vec<(u64, String)> = read
        .0
        .open_table(tables::BOOKING_RECORDS)
        .unwrap()
        .iter()
        .unwrap()
        .map(|row| {
            let (key, _) = row.unwrap();
            let (seq, _, key) = key.value();
            (seq, key.to_owned())
        })
        .collect();
    assert_eq!(kept, [(1, "sea-view/BK-7Q4M2A/pay_1".to_owned()), (2, "sea-view/BK-7Q4M2B/pay_1".to_owned())]);
    assert_eq!(read.record(&payment, "sea-view/BK-7Q4M2A/pay_1").unwrap().unwrap().at, Some(30));
    assert_eq!(read.records(&payment, "", "", 10).unwrap().len(), 2);
}

#[test]
fn a_commit_that_changed_something_tells_how_long_its_sync_took() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join(FILE_NAME)).unwrap();
    assert_eq!(store.sync_latency(), Some(std::time::Duration::ZERO), "nothing synced yet");
    let mut tx = store.write().unwrap();
    tx.put_booking(&demo::booking("BK-7Q4M2X", "2026-12-20", "2026-12-27")).unwrap();
    tx.commit().unwrap();
    assert!(store.sync_latency().is_some_and(|took| took > std::time::Duration::ZERO));
}
