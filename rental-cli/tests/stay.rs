//! Per-stay door codes stay out of the server's log (docs/API.md section 15):
//! a real `rental serve` at debug level answers the summary and the booking
//! with the code, checks the stay in and out, and its log never shows it.

mod common;

use common::{Sandbox, post, request, stay};
use rental_core::access::DoorCodeMode;
use rental_core::{Action, demo};
use serde_json::json;

#[test]
fn a_per_stay_code_is_served_but_never_logged() {
    let (s, key) = Sandbox::with_key();
    let code = {
        let library = s.library();
        let sea = {
            let mut edited = demo::sea_view();
            edited.timezone = rental_core::Tz::UTC; // the sandbox's days are UTC days
            edited.access.door_code_mode = DoorCodeMode::PerStay;
            edited.access.door_code_length = 8;
            edited
        };
        library.import_properties(&[sea]).unwrap();
        let booking = library.create_booking(&stay(0, 3), None).unwrap().booking;
        library.update_booking(booking.code.as_str(), &Action::Confirm).unwrap().visit.access.unwrap().code
    };
    let server = s.serve_with(&[("RUST_LOG", "debug")]);
    let summary = request(server.addr, "GET", "/api/v1/ha/summary", &key, "");
    assert!(summary.contains(&code), "the summary serves the code: {summary}");
    let bookings = request(server.addr, "GET", "/api/v1/bookings?property=sea-view", &key, "");
    assert!(bookings.contains(&code), "the booking carries it: {bookings}");
    let booking_code = bookings.split("\"code\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    for action in ["check_in", "check_out"] {
        let body = json!({"action": action}).to_string();
        let reply = request(server.addr, "PATCH", &format!("/api/v1/bookings/{booking_code}"), &key, &body);
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
    let (status, _) = post(server.addr, "/api/v1/sync/ical", &key, &json!({}));
    assert_eq!(status, 200);
    let log = server.log();
    assert!(log.contains(&booking_code) || log.contains("/api/v1/"), "the log records requests: {log}");
    assert!(!log.contains(&code), "the door code {code} is in the log:\n{log}");
}
