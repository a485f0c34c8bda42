//! `rental db migrate` and `rental db copy --to URL` (docs/API.md section 17): an empty database's
//! schema; a redb data directory copied whole, every count checked, and the same answers on both.

mod common;

use chrono::{Days, NaiveDate};
use common::Sandbox;
use rental_core::keys::Scope;
use rental_core::store::{PgStore, ReadTx, WriteTx};
use rental_core::webhook::Subscription;
use rental_core::{Rental, Slug, Status, Stay, Store, demo};
use rental_tests::postgres::PgCluster;
use rental_tests::tools;

fn sandbox() -> Sandbox {
    Sandbox { dir: tempfile::tempdir().unwrap() }
}

/// `rental ARGS` on the database at `url`.
fn on_database(sandbox: &Sandbox, url: &str, args: &[&str]) -> common::Run {
    sandbox.run_with(args, &[("RENTAL_DATABASE_URL", url)])
}

#[test]
fn the_demo_store_copies_whole_and_every_command_answers_the_same_on_postgres() {
    if !tools::postgres() {
        return;
    }
    let sandbox = sandbox();
    let secret = {
        let rental = Rental::new(rental_core::RedbStore::open_dir(sandbox.data_dir()).unwrap());
        rental.seed_demo().unwrap();
        let secret = rental.admin().create_key("website", &[Scope::Read, Scope::Write]).unwrap().secret;
        rental.admin().create_key("old", &[Scope::Read]).unwrap();
        rental.admin().revoke_key("old").unwrap();
        rental.admin().add_webhook("https://example.com/hook", Subscription::parse("*").unwrap(), None).unwrap();
        rental.worker().fan_out(1_000).unwrap();
        let mut request = common::stay(60, 3);
        request.property = "harbour-loft".parse().unwrap();
        request.guests = 2;
        rental.create_booking(&request, Some("order-1")).unwrap();
        rental.admin().set_admin_password("correct horse battery").unwrap();
        secret
    };
    let url = PgCluster::shared().empty_database();
    let run = sandbox.run(&["db", "copy", "--to", &url]).ok();
    assert!(run.stdout.contains("every count matches"), "{run:?}");
    for table in ["properties", "bookings", "outbox", "deliveries", "idempotency", "records"] {
        assert!(run.stdout.contains(table), "{table}: {run:?}");
    }
    for args in [
        &["bookings", "list", "--json"][..],
        &["property", "list", "--json"],
        &["keys", "list", "--json"],
        &["webhook", "list", "--json"],
    ] {
        let (redb, postgres) = (sandbox.run(args).ok(), on_database(&sandbox, &url, args).ok());
        assert_eq!(redb.json(), postgres.json(), "{args:?}");
    }
    let copied = Rental::new(PgStore::open(&url).unwrap());
    assert!(copied.admin().authenticate(&secret).unwrap().is_some(), "keys work by their secret");
    assert!(copied.worker().verify_admin_password("correct horse battery").unwrap());
    let read = copied.store().read().unwrap();
    assert!(read.unfanned_events(10).unwrap().len() == 1, "the booking made after the fan-out is still to fan out");
    assert!(read.idempotency("order-1").unwrap().is_some());
    drop(read);
    let seq = rental_tests::all_events(&copied).last().unwrap().seq;
    copied.admin().create_key("after", &[Scope::Read]).unwrap();
    copied
        .update_booking(
            copied.bookings(&rental_core::BookingQuery { limit: 1, ..Default::default() }).unwrap().data[0]
                .code
                .as_str(),
            &rental_core::Action::Annotate { note: "copied".into() },
        )
        .unwrap();
    assert_eq!(
        rental_tests::all_events(&copied).last().unwrap().seq,
        seq + 1,
        "new events number after the copied ones"
    );
}

#[test]
fn a_database_that_already_holds_records_is_refused() {
    if !tools::postgres() {
        return;
    }
    let sandbox = sandbox();
    Rental::new(rental_core::RedbStore::open_dir(sandbox.data_dir()).unwrap()).seed_demo().unwrap();
    let url = PgCluster::shared().database();
    Rental::new(PgStore::open(&url).unwrap()).import_properties(&demo::properties()).unwrap();
    let line = sandbox.run(&["db", "copy", "--to", &url]).fails(1).to_owned();
    assert!(line.contains("not empty"), "{line}");
    let line = sandbox.run(&["db", "copy", "--to", "./elsewhere"]).fails(2).to_owned();
    assert!(line.contains("postgres://"), "{line}");
}

#[test]
fn ten_thousand_bookings_copy_with_every_count_matching() {
    if !tools::postgres() {
        return;
    }
    let sandbox = sandbox();
    let store = rental_core::RedbStore::open_dir(sandbox.data_dir()).unwrap();
    let mut tx = store.write().unwrap();
    let properties = demo::properties();
    for p in &properties {
        tx.put_property(p).unwrap();
    }
    let start = NaiveDate::from_ymd_opt(2027, 1, 1).unwrap();
    for i in 0..10_000u64 {
        let property = &properties[(i % 3) as usize];
        let check_in = start + Days::new(i / 3);
        let mut booking = demo::booking(&format!("BK-{i:06}"), "2027-01-01", "2027-01-02");
        booking.stay = Stay::new(check_in, check_in + Days::new(1)).unwrap();
        booking.property = Slug::parse(property.slug.as_str()).unwrap();
        booking.property_name = property.name.clone();
        if i % 10 == 0 {
            booking.status = Status::Cancelled;
        }
        tx.put_booking(&booking).unwrap();
    }
    tx.commit().unwrap();
    drop(store);
    let url = PgCluster::shared().empty_database();
    let run = sandbox.run(&["db", "copy", "--to", &url]).ok();
    assert!(run.stdout.contains("every count matches"), "{run:?}");
    let counts = PgStore::connect(&url).unwrap().counts().unwrap();
    assert!(counts.contains(&("bookings", 10_000)), "{counts:?}");
    assert!(counts.contains(&("properties", 3)), "{counts:?}");
    // With no checkout TTL the command leaves the holds as they were copied.
    let env = [("RENTAL_DATABASE_URL", url.as_str()), ("RENTAL_CHECKOUT_TTL", "0")];
    let pending = sandbox.run_with(&["bookings", "list", "--status", "pending", "--json", "--limit", "200"], &env).ok();
    assert_eq!(pending.json()["data"].as_array().unwrap().len(), 200);
}

#[test]
fn db_migrate_brings_an_empty_database_up_to_date_once_and_needs_a_database() {
    if !tools::postgres() {
        return;
    }
    let sandbox = sandbox();
    let url = PgCluster::shared().empty_database();
    let first = sandbox.run(&["db", "migrate", "--database", &url]).ok();
    assert!(first.stdout.starts_with("applied migration 1, 2, 3, 4, 5, 6, 7; the schema is at version 7"), "{first:?}");
    let again = on_database(&sandbox, &url, &["db", "migrate"]).ok();
    assert!(again.stdout.starts_with("the schema is up to date"), "{again:?}");
    let line = sandbox.run(&["db", "migrate"]).fails(2).to_owned();
    assert!(line.contains("--database"), "{line}");
    let line = sandbox.run(&["db", "migrate", "--database", "mysql://db/rental"]).fails(2).to_owned();
    assert!(line.contains("postgres://"), "{line}");
}
