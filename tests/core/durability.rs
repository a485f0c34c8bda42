//! What a redb store keeps across closing and reopening (docs/API.md section 9:
//! events are stored in the same write as the change that causes them).

use rental_core::availability::NightStatus;
use rental_core::store::StoreError;
use rental_core::{Action, Error, PaymentStatus, RedbStore, Rental, Status};
use rental_tests::{all_events, d, fixed_clock, new_booking, open_redb, rental_with_demo};

#[test]
fn a_booking_and_its_events_survive_closing_and_reopening_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let (booking, events) = {
        let rental = rental_with_demo(open_redb(dir.path()), fixed_clock());
        let created = rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap();
        let booking = rental.update_booking(created.booking.code.as_str(), &Action::Confirm).unwrap();
        (booking, all_events(&rental))
    }; // the engine and its store are dropped here, closing the file

    let reopened = Rental::new(open_redb(dir.path())).with_clock(fixed_clock());
    let stored = reopened.booking(booking.code.as_str()).unwrap();
    assert_eq!(stored, booking);
    assert_eq!((stored.status, stored.payment_status), (Status::Confirmed, PaymentStatus::Paid));
    let names: Vec<&str> = all_events(&reopened).iter().map(|e| e.event.event.as_str()).collect();
    assert_eq!(names, ["booking.created", "booking.confirmed", "booking.updated"]);
    assert_eq!(all_events(&reopened), events);
    let nights = reopened.availability("sea-view", Some(d("2026-12-20")), Some(d("2026-12-27"))).unwrap().nights;
    assert!(nights.iter().all(|n| n.status == NightStatus::Booked), "the calendar index came back too");
    assert_eq!(reopened.properties().unwrap().len(), 3);
}

#[test]
fn the_outbox_keeps_numbering_after_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let rental = rental_with_demo(open_redb(dir.path()), fixed_clock());
        rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap();
    }
    let reopened = Rental::new(open_redb(dir.path())).with_clock(fixed_clock());
    reopened.create_booking(&new_booking("sea-view", "2027-01-10", "2027-01-13", 2), None).unwrap();
    let seqs: Vec<u64> = all_events(&reopened).iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2]);
}

#[test]
fn an_idempotency_key_is_remembered_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let request = new_booking("sea-view", "2026-12-20", "2026-12-27", 3);
    let first = {
        let rental = rental_with_demo(open_redb(dir.path()), fixed_clock());
        rental.create_booking(&request, Some("order-42")).unwrap().booking
    };
    let reopened = Rental::new(open_redb(dir.path())).with_clock(fixed_clock());
    let again = reopened.create_booking(&request, Some("order-42")).unwrap();
    assert!(again.replayed);
    assert_eq!(again.booking.code, first.code);
    assert_eq!(all_events(&reopened).len(), 1);
}

#[test]
fn a_store_held_open_cannot_be_opened_a_second_time() {
    let dir = tempfile::tempdir().unwrap();
    let held = open_redb(dir.path());
    let second = RedbStore::open(dir.path().join("rental.redb"));
    assert!(matches!(second, Err(StoreError::Locked)), "{second:?}");
    assert_eq!(Error::from(StoreError::Locked).code(), "unavailable");
    drop(held);
    assert!(RedbStore::open(dir.path().join("rental.redb")).is_ok(), "free again once closed");
}

#[test]
fn open_dir_creates_the_data_directory_and_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested").join("rental-data");
    {
        let rental = rental_with_demo(RedbStore::open_dir(&data).unwrap(), fixed_clock());
        rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap();
    }
    assert!(data.join("rental.redb").is_file());
    let reopened = Rental::new(RedbStore::open_dir(&data).unwrap());
    assert_eq!(reopened.all_properties().unwrap().len(), 3);
}

#[test]
fn the_admin_password_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    Rental::new(open_redb(dir.path())).admin().set_admin_password("kept across restarts").unwrap();
    let reopened = Rental::new(open_redb(dir.path()));
    assert!(reopened.worker().verify_admin_password("kept across restarts").unwrap());
    assert!(!reopened.worker().verify_admin_password("something else").unwrap());
}

/// A webhook as the code before secret rotation stored it: one `secret`, generated as `whsec_` + 32 base62 characters.
const OLD_WEBHOOK: &str = r#"{"id":"wh_3kTq9VbX1mZp","url":"https://example.com/hooks","secret":"whsec_7QX2MFa9Kd3LpZ0vYt8RwB6nHc4SjE1u","events":["booking.created"],"active":true,"createdAt":"2026-10-01T09:30:00.000Z"}"#;

#[test]
fn a_webhook_stored_before_secret_rotation_existed_loads_signs_and_rotates() {
    let dir = tempfile::tempdir().unwrap();
    drop(open_redb(dir.path()));
    {
        let db = redb::Database::open(dir.path().join("rental.redb")).unwrap();
        let tx = db.begin_write().unwrap();
        // Webhooks are records (kind `webhook`) since schema 7; the document is as it was.
        tx.open_table(redb::TableDefinition::<(&str, &str), (Option<i64>, &[u8])>::new("records"))
            .unwrap()
            .insert(("webhook", "wh_3kTq9VbX1mZp"), (None, OLD_WEBHOOK.as_bytes()))
            .unwrap();
        tx.commit().unwrap();
    }
    let secret = "whsec_7QX2MFa9Kd3LpZ0vYt8RwB6nHc4SjE1u";
    let rotated = {
        let rental = rental_with_demo(open_redb(dir.path()), fixed_clock());
        let old = rental.admin().webhooks().unwrap().remove(0);
        assert_eq!((old.id.as_str(), old.secret(), old.secrets.all().len()), ("wh_3kTq9VbX1mZp", secret, 1));
        rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap();
        rental.worker().fan_out(10).unwrap();
        assert_eq!(rental.worker().due_deliveries(10).unwrap()[0].secrets, [secret], "it signs with its one secret");
        rental.admin().rotate_webhook_secret(&old.id, None).unwrap()
    };
    let reopened = Rental::new(open_redb(dir.path())).with_clock(fixed_clock());
    let stored = reopened.admin().webhooks().unwrap().remove(0);
    assert_eq!(stored, rotated);
    assert_eq!(stored.secrets.active(reopened.now()), [rotated.secret(), secret]);
}
