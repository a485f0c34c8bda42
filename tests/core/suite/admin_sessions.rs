//! Admin sessions and the login throttle on every store: what the dashboard
//! keeps so that a restart, or another server on the same store, knows them.

use chrono::TimeDelta;
use rental_core::Store;
use rental_core::admin_session::{Flash, SEEN_EVERY};
use rental_tests::{Harness, store_suite};

store_suite!(
    a_session_is_found_by_its_key_and_ends_when_ended,
    a_flash_is_shown_once,
    a_session_idle_too_long_is_gone_and_a_busy_one_lives,
    a_new_session_sweeps_the_idle_ones,
    five_failed_logins_make_the_client_wait_and_success_forgets_them,
);

const IDLE: TimeDelta = TimeDelta::hours(12);

fn a_session_is_found_by_its_key_and_ends_when_ended<S: Store>(h: &Harness<S>) {
    let r = &h.rental;
    r.worker().start_admin_session("key-a", "csrf-a", IDLE, r.now()).unwrap();
    r.worker().start_admin_session("key-b", "csrf-b", IDLE, r.now()).unwrap();
    let a = r.worker().admin_session("key-a", IDLE, r.now()).unwrap().expect("session a");
    assert_eq!((a.csrf.as_str(), a.flash), ("csrf-a", None));
    assert!(r.worker().admin_session("key-unknown", IDLE, r.now()).unwrap().is_none());
    r.worker().end_admin_session("key-a").unwrap();
    assert!(r.worker().admin_session("key-a", IDLE, r.now()).unwrap().is_none());
    assert!(r.worker().admin_session("key-b", IDLE, r.now()).unwrap().is_some(), "the other session lives");
}

fn a_flash_is_shown_once<S: Store>(h: &Harness<S>) {
    let r = &h.rental;
    r.worker().start_admin_session("key", "csrf", IDLE, r.now()).unwrap();
    r.worker().set_admin_flash("key", &Flash::done("Saved.")).unwrap();
    assert_eq!(r.worker().admin_session("key", IDLE, r.now()).unwrap().unwrap().flash, Some(Flash::done("Saved.")));
    assert_eq!(r.worker().admin_session("key", IDLE, r.now()).unwrap().unwrap().flash, None);
    r.worker().set_admin_flash("key-gone", &Flash::failed("lost")).unwrap();
    assert!(r.worker().admin_session("key-gone", IDLE, r.now()).unwrap().is_none(), "a flash makes no session");
}

fn a_session_idle_too_long_is_gone_and_a_busy_one_lives<S: Store>(h: &Harness<S>) {
    let r = &h.rental;
    let idle = TimeDelta::minutes(10);
    r.worker().start_admin_session("busy", "c1", idle, r.now()).unwrap();
    r.worker().start_admin_session("idle", "c2", idle, r.now()).unwrap();
    for _ in 0..6 {
        h.clock.advance(TimeDelta::minutes(4));
        assert!(r.worker().admin_session("busy", idle, r.now()).unwrap().is_some(), "each request renews it");
    }
    assert!(r.worker().admin_session("idle", idle, r.now()).unwrap().is_none(), "24 minutes without a request");
    h.clock.advance(idle);
    assert!(r.worker().admin_session("busy", idle, r.now()).unwrap().is_none());
}

fn a_new_session_sweeps_the_idle_ones<S: Store>(h: &Harness<S>) {
    let r = &h.rental;
    r.worker().start_admin_session("old", "c1", IDLE, r.now()).unwrap();
    h.clock.advance(IDLE + SEEN_EVERY);
    r.worker().start_admin_session("new", "c2", IDLE, r.now()).unwrap();
    h.clock.set(rental_tests::NOW.parse().unwrap());
    assert!(r.worker().admin_session("old", IDLE, r.now()).unwrap().is_none(), "removed, not only expired");
}

fn five_failed_logins_make_the_client_wait_and_success_forgets_them<S: Store>(h: &Harness<S>) {
    let r = &h.rental;
    for _ in 0..4 {
        r.worker().login_failed("10.0.0.1", r.now()).unwrap();
    }
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), None, "four are free");
    r.worker().login_failed("10.0.0.1", r.now()).unwrap();
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), Some(TimeDelta::seconds(1)));
    assert_eq!(r.worker().login_wait("10.0.0.2", r.now()).unwrap(), None, "per client");
    h.clock.advance(TimeDelta::seconds(1));
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), None);
    r.worker().login_failed("10.0.0.1", r.now()).unwrap();
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), Some(TimeDelta::seconds(2)), "doubled");
    r.worker().login_succeeded("10.0.0.1").unwrap();
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), None);
    r.worker().login_failed("10.0.0.1", r.now()).unwrap();
    assert_eq!(r.worker().login_wait("10.0.0.1", r.now()).unwrap(), None, "counting starts again");
}
