//! Racing writers (docs/API.md section 6): two concurrent requests for
//! overlapping nights, exactly one wins. Many threads share one engine.

use std::sync::{Arc, Barrier};
use std::thread;

use chrono::{Days, NaiveDate};
use rental_core::availability::NightStatus;
use rental_core::{Created, Error, MemoryStore, NewBooking, Rental, Store};
use rental_tests::{d, fixed_clock, list_all, new_booking, open_redb, rental_with_demo};

const THREADS: usize = 8;

/// Runs `request(i)` on `THREADS` threads released together; results by thread.
fn race<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    request: impl Fn(usize) -> (NewBooking, Option<String>) + Send + Sync + 'static,
) -> Vec<Result<Created, Error>> {
    let barrier = Arc::new(Barrier::new(THREADS));
    let request = Arc::new(request);
    let handles: Vec<_> = (0..THREADS)
        .map(|i| {
            let (rental, barrier, request) = (Arc::clone(rental), Arc::clone(&barrier), Arc::clone(&request));
            thread::spawn(move || {
                let (body, key) = request(i);
                barrier.wait();
                rental.create_booking(&body, key.as_deref())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().expect("a racing thread panicked")).collect()
}

/// Thread `i` asks for a stay of 2 to 5 nights that always includes the nights `base+2` and `base+3`.
fn overlapping(base: NaiveDate, i: usize) -> NewBooking {
    let check_in = base + Days::new((i % 3) as u64);
    let check_out = base + Days::new(4 + (i % 2) as u64);
    NewBooking {
        check_in,
        check_out,
        guest_name: format!("Guest {i}"),
        ..new_booking("sea-view", "2027-01-01", "2027-01-03", 2)
    }
}

fn exactly_one_of_eight_overlapping_requests_wins<S: Store + 'static>(rental: &Arc<Rental<S>>) {
    for round in 0..4u64 {
        let base = d("2027-01-04") + Days::new(10 * round);
        let results = race(rental, move |i| (overlapping(base, i), None));
        let winners: Vec<&Created> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let losers = results.iter().filter(|r| matches!(r, Err(Error::DatesUnavailable { .. }))).count();
        assert_eq!(losers, THREADS - 1, "round {round}: {results:?}");

        let won = &winners[0].booking;
        let nights = rental.availability("sea-view", Some(base), Some(base + Days::new(6))).unwrap().nights;
        for n in nights {
            let want = if won.stay.contains(n.date) { NightStatus::Held } else { NightStatus::Available };
            assert_eq!(n.status, want, "round {round}, night {}", n.date);
        }
    }
    let all = list_all(rental, rental_core::BookingQuery { limit: 50, ..Default::default() });
    assert_eq!(all.len(), 4, "one booking per round");
    assert_eq!(rental.admin().events_after(0, 1000).unwrap().len(), 4, "one booking.created per round");
}

#[test]
fn exactly_one_of_eight_threads_racing_for_the_same_nights_wins_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    let rental = Arc::new(rental_with_demo(open_redb(dir.path()), fixed_clock()));
    exactly_one_of_eight_overlapping_requests_wins(&rental);
}

#[test]
fn exactly_one_of_eight_threads_racing_for_the_same_nights_wins_with_reads_from_memory() {
    let dir = tempfile::tempdir().unwrap();
    let rental = rental_with_demo(open_redb(dir.path()), fixed_clock()).with_read_cache().unwrap();
    let rental = Arc::new(rental);
    exactly_one_of_eight_overlapping_requests_wins(&rental);
    assert!(rental.worker().reads_from_memory(), "availability above came from the in-memory snapshot");
}

#[test]
fn exactly_one_of_eight_threads_racing_for_the_same_nights_wins_in_memory() {
    let rental = Arc::new(rental_with_demo(MemoryStore::new(), fixed_clock()));
    exactly_one_of_eight_overlapping_requests_wins(&rental);
}

#[test]
fn eight_threads_booking_different_nights_all_win_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    let rental = Arc::new(rental_with_demo(open_redb(dir.path()), fixed_clock()));
    let results = race(&rental, |i| {
        let check_in = d("2027-01-04") + Days::new(3 * i as u64);
        (
            NewBooking {
                check_in,
                check_out: check_in + Days::new(3),
                ..new_booking("sea-view", "2027-01-01", "2027-01-03", 2)
            },
            None,
        )
    });
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let nights = rental.availability("sea-view", Some(d("2027-01-04")), Some(d("2027-01-28"))).unwrap().nights;
    assert!(nights.iter().all(|n| n.status == NightStatus::Held), "24 nights, all held");
}

#[test]
fn eight_threads_repeating_one_idempotent_request_create_one_booking_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    let rental = Arc::new(rental_with_demo(open_redb(dir.path()), fixed_clock()));
    let results =
        race(&rental, |_| (new_booking("sea-view", "2027-01-04", "2027-01-08", 2), Some("order-7".to_owned())));
    let created: Vec<&Created> = results.iter().map(|r| r.as_ref().expect("every repeat succeeds")).collect();
    assert_eq!(created.iter().filter(|c| !c.replayed).count(), 1);
    assert!(created.iter().all(|c| c.booking.code == created[0].booking.code), "one code for all");
    assert_eq!(rental.admin().events_after(0, 1000).unwrap().len(), 1);
}

/// One batch as the HTTP server gathers it: each creation is checked against
/// every one before it, and each gets its own answer, in order.
fn a_batch_answers_each_request_in_order<S: Store>(rental: &Rental<S>) {
    let stay = new_booking("sea-view", "2027-02-01", "2027-02-04", 2);
    let keyed = new_booking("sea-view", "2027-03-01", "2027-03-03", 2);
    let requests = vec![
        (stay.clone(), None),
        (NewBooking { guests: 0, ..stay.clone() }, None),
        (NewBooking { guest_name: "Second".into(), ..stay.clone() }, None),
        (keyed.clone(), Some("order-9".to_owned())),
        (keyed, Some("order-9".to_owned())),
        (new_booking("sea-view", "2027-02-04", "2027-02-06", 2), None),
    ];
    let results = rental.worker().create_bookings(&requests);
    assert_eq!(results.len(), 6, "{results:?}");
    assert!(matches!(&results[0], Ok(c) if !c.replayed), "{:?}", results[0]);
    assert!(matches!(&results[1], Err(Error::Validation(_))), "guests 0: {:?}", results[1]);
    assert!(matches!(&results[2], Err(Error::DatesUnavailable { .. })), "the same nights: {:?}", results[2]);
    let (first, again) = (results[3].as_ref().unwrap(), results[4].as_ref().unwrap());
    assert!(!first.replayed && again.replayed, "the repeated key replays the creation before it");
    assert_eq!(first.booking.code, again.booking.code);
    assert!(results[5].is_ok(), "the next stay starts on the first one's check-out: {:?}", results[5]);
    let all = list_all(rental, rental_core::BookingQuery { limit: 50, ..Default::default() });
    assert_eq!(all.len(), 3, "three bookings made: {all:?}");
}

#[test]
fn a_batch_of_creations_answers_each_request_in_order_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    a_batch_answers_each_request_in_order(&rental_with_demo(open_redb(dir.path()), fixed_clock()));
}

#[test]
fn a_batch_of_creations_answers_each_request_in_order_in_memory() {
    a_batch_answers_each_request_in_order(&rental_with_demo(MemoryStore::new(), fixed_clock()));
}

/// Sea View with a promo code for one booking only.
fn with_one_use_code<S: Store>(rental: &Rental<S>) {
    let mut p = rental_core::demo::sea_view();
    let mut code = rental_core::property::PromoCode::new("LAST", 1_500);
    code.max_uses = Some(1);
    p.pricing.rules = rental_core::property::PriceRules::default().promo(code);
    rental.import_properties(&[p]).unwrap();
}

/// Thread `i` asks for its own nights with the code: only the code is shared.
fn with_code(i: usize) -> NewBooking {
    let check_in = d("2027-01-04") + Days::new(4 * i as u64);
    NewBooking {
        check_in,
        check_out: check_in + Days::new(3),
        promo_code: Some("last".into()),
        locale: None,
        ..new_booking("sea-view", "2027-01-01", "2027-01-03", 2)
    }
}

fn one_of_eight_racing_for_a_code_s_last_use_gets_it<S: Store + 'static>(rental: &Arc<Rental<S>>) {
    with_one_use_code(rental);
    let results = race(rental, |i| (with_code(i), None));
    let won = results.iter().filter(|r| r.is_ok()).count();
    let used_up = results
        .iter()
        .filter(|r| matches!(r, Err(Error::PromoCode { reason: rental_core::pricing::PromoRefusal::UsedUp })))
        .count();
    assert_eq!((won, used_up), (1, THREADS - 1), "{results:?}");
}

#[test]
fn one_of_eight_threads_racing_for_a_promo_code_s_last_use_gets_it_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    let rental = Arc::new(rental_with_demo(open_redb(dir.path()), fixed_clock()));
    one_of_eight_racing_for_a_code_s_last_use_gets_it(&rental);
}

#[test]
fn one_of_eight_threads_racing_for_a_promo_code_s_last_use_gets_it_in_memory() {
    let rental = Arc::new(rental_with_demo(MemoryStore::new(), fixed_clock()));
    one_of_eight_racing_for_a_code_s_last_use_gets_it(&rental);
}

/// A promo code's uses are one counter record per property and code, moved by
/// the write that changes a booking: a creation reads it instead of every
/// booking of the property; a cancellation gives the use back; backups carry
/// it; a store without it (an older backup) counts its bookings once.
#[test]
fn a_promo_code_s_uses_are_one_counter_that_a_cancellation_moves_and_a_backup_carries() {
    use rental_core::lifecycle::Party;
    use rental_core::{Action, backup};
    let used_up = |r: Result<Created, Error>| matches!(r, Err(Error::PromoCode { .. }));
    let rental = rental_with_demo(MemoryStore::new(), fixed_clock());
    with_one_use_code(&rental);
    let first = rental.create_booking(&with_code(0), None).unwrap().booking;
    assert!(used_up(rental.create_booking(&with_code(1), None)), "the one use is taken");
    let now = rental_tests::at("2026-11-28T12:00:00Z");
    let mut out = Vec::new();
    backup::write(&rental.store().read().unwrap(), now, &mut out).unwrap();
    assert_eq!(backup::read(&out).unwrap().counts.get("promo_uses"), Some(&1), "one counter record");

    // An older store: the same bookings without the counter.
    let text = String::from_utf8(out).unwrap();
    let older: Vec<&str> =
        text.lines().filter(|l| !(l.starts_with("{\"kind\"") && l.contains("\"promo_uses\""))).collect();
    let (body, trailer) = older.split_at(older.len() - 1);
    let body = format!("{}\n", body.join("\n"));
    let mut trailer: serde_json::Value = serde_json::from_str(trailer[0]).unwrap();
    trailer["records"] = (trailer["records"].as_u64().unwrap() - 1).into();
    trailer["counts"].as_object_mut().unwrap().remove("promo_uses");
    trailer["sha256"] = sha256_hex(body.as_bytes()).into();
    let older = MemoryStore::new();
    backup::restore_from(&older, format!("{body}{trailer}\n").as_bytes()).unwrap();
    let older = Rental::new(older);
    assert!(used_up(older.create_booking(&with_code(1), None)), "counted from the bookings");

    for rental in [&rental, &older] {
        rental.update_booking(first.code.as_str(), &Action::Cancel { by: Party::Host, reason: None }).unwrap();
        rental.create_booking(&with_code(1), None).expect("the cancelled booking's use is free again");
        assert!(used_up(rental.create_booking(&with_code(2), None)), "and taken again");
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes).iter().fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}
