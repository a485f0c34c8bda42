//! Feed pull leases (docs/API.md section 17): one pull of a feed at a time, on
//! every store, claimed and cleared in ordinary writes.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::worker::{FeedPull, Fetched, PullClaim};
use rental_core::{BookingQuery, Status, Store};
use rental_tests::{Harness, store_suite};

store_suite!(
    a_claimed_feed_is_refused_to_every_other_claim_until_its_pull_is_applied,
    a_lapsed_lease_is_taken_over_and_of_the_two_pulls_the_later_applied_is_dropped,
    a_pull_given_up_frees_the_feed_at_once_but_only_its_holder_can_give_it_up,
    a_pull_asked_for_while_another_ran_does_not_confirm_its_empty_calendar,
);

const LEASE: Duration = Duration::from_secs(60);
const STAYS: [(&str, &str, &str, &str); 2] =
    [("a1", "Reserved", "2026-12-01", "2026-12-04"), ("a2", "Reserved", "2026-12-10", "2026-12-12")];

/// sea-view pulls an `airbnb` feed; its pull as planned now.
fn with_feed<S: Store>(h: &Harness<S>) -> FeedPull {
    let mut property = h.rental.property("sea-view").unwrap();
    property.feeds.ical_feeds = vec![IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://www.airbnb.example/calendar.ics".into(),
        reservation_patterns: vec![],
    }];
    h.rental.import_properties(&[property]).unwrap();
    planned(h)
}

fn planned<S: Store>(h: &Harness<S>) -> FeedPull {
    h.rental.worker().feed_pulls(Some("sea-view")).unwrap().remove(0)
}

fn body(events: &[(&str, &str, &str, &str)], etag: Option<&str>) -> Fetched {
    Fetched::Body {
        body: rental_tests::feeds::calendar(events).into_bytes(),
        etag: etag.map(str::to_owned),
        last_modified: None,
    }
}

fn claim<S: Store>(h: &Harness<S>, pull: &FeedPull, owner: &str) -> PullClaim {
    h.rental.worker().claim_feed_pull(pull, owner, LEASE).unwrap()
}

/// The pull `owner` claims; fails the test when the feed is held.
fn claimed<S: Store>(h: &Harness<S>, pull: &FeedPull, owner: &str) -> FeedPull {
    match claim(h, pull, owner) {
        PullClaim::Claimed(pull) => pull,
        held @ PullClaim::Held(_) => panic!("{owner} could not claim the feed: {held:?}"),
    }
}

fn is_held<S: Store>(h: &Harness<S>, pull: &FeedPull, owner: &str) -> bool {
    matches!(claim(h, pull, owner), PullClaim::Held(_))
}

/// The confirmed bookings imported from the feed.
fn confirmed<S: Store>(h: &Harness<S>) -> usize {
    let query = BookingQuery { source: Some(Source::parse("airbnb").unwrap()), limit: 10, ..Default::default() };
    h.rental.bookings(&query).unwrap().data.iter().filter(|b| b.status == Status::Confirmed).count()
}

fn a_claimed_feed_is_refused_to_every_other_claim_until_its_pull_is_applied<S: Store>(h: &Harness<S>) {
    let asked = with_feed(h);
    let first = claimed(h, &asked, "one");
    let until = h.rental.now() + TimeDelta::seconds(60);
    assert_eq!(claim(h, &asked, "two"), PullClaim::Held(until), "held by one for the lease");
    assert!(is_held(h, &asked, "one"), "not even to its owner twice");
    assert_eq!(h.rental.worker().apply_pull(&first, body(&STAYS, Some("\"v1\""))).unwrap().created, 2);

    let second = claimed(h, &asked, "two");
    assert_eq!(
        (second.applied, second.etag.as_deref()),
        (1, Some("\"v1\"")),
        "planned afresh: the first pull's validators, not those of the pull as asked for"
    );
    assert!(is_held(h, &asked, "one"));
    assert!(h.rental.worker().apply_pull(&second, Fetched::NotModified).unwrap().ok);
    claimed(h, &asked, "one");
}

fn a_lapsed_lease_is_taken_over_and_of_the_two_pulls_the_later_applied_is_dropped<S: Store>(h: &Harness<S>) {
    let asked = with_feed(h);
    let hung = claimed(h, &asked, "one");
    h.clock.advance(TimeDelta::seconds(59));
    assert!(is_held(h, &asked, "two"), "the lease holds for 60 s");
    h.clock.advance(TimeDelta::seconds(1));
    let taken = claimed(h, &asked, "two");
    assert!(h.rental.worker().apply_pull(&hung, body(&STAYS, None)).unwrap().ok, "the hung pull comes back first");
    assert!(is_held(h, &asked, "three"), "the hung pull cleared no lease of another owner");
    let dropped = h.rental.worker().apply_pull(&taken, body(&[], None)).unwrap();
    assert!(!dropped.ok && dropped.cancelled == 0, "planned before the hung one was applied: {dropped:?}");
    assert_eq!(confirmed(h), 2);
    claimed(h, &asked, "three");
}

fn a_pull_given_up_frees_the_feed_at_once_but_only_its_holder_can_give_it_up<S: Store>(h: &Harness<S>) {
    let asked = with_feed(h);
    let mine = claimed(h, &asked, "one");
    h.rental.worker().release_feed_pull(&asked).unwrap();
    assert!(is_held(h, &asked, "two"), "a pull that holds no lease gives up nothing");
    h.rental.worker().release_feed_pull(&mine).unwrap();
    let theirs = claimed(h, &asked, "two");
    assert_eq!(theirs.applied, 0, "nothing was applied");
}

fn a_pull_asked_for_while_another_ran_does_not_confirm_its_empty_calendar<S: Store>(h: &Harness<S>) {
    let first = with_feed(h);
    h.rental.worker().apply_pull(&claimed(h, &first, "one"), body(&STAYS, None)).unwrap();
    assert_eq!(confirmed(h), 2);

    // Two syncs asked for at once, one on each server: one pulls, the other waits, then pulls.
    let (on_one, on_two) = (planned(h), planned(h));
    let guarded = h.rental.worker().apply_pull(&claimed(h, &on_one, "one"), body(&[], None)).unwrap();
    assert!(!guarded.ok && guarded.cancelled == 0, "the first empty calendar is not believed: {guarded:?}");
    let waited = h.rental.worker().apply_pull(&claimed(h, &on_two, "two"), body(&[], None)).unwrap();
    assert!(!waited.ok && waited.cancelled == 0, "asked for before the first was applied: {waited:?}");
    assert_eq!(confirmed(h), 2, "the guard held");

    let later = h.rental.worker().apply_pull(&claimed(h, &planned(h), "one"), body(&[], None)).unwrap();
    assert_eq!((later.ok, later.cancelled), (true, 2), "a pull asked for afterwards confirms it");
    assert_eq!(confirmed(h), 0);
}
