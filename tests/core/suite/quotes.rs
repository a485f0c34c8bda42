//! docs/API.md section 5: quotes.

use rental_core::pricing::Problem;
use rental_core::{Error, NotFound, QuoteRequest, Store};
use rental_tests::{Harness, d, store_suite};

use super::faults;

store_suite!(
    the_contract_example_is_priced_to_the_cent,
    a_quote_lists_taken_nights_and_is_still_priced,
    each_broken_stay_rule_is_a_problem_with_its_code,
    a_stay_follows_the_minimum_of_its_first_night,
    guests_default_to_one_in_a_quote_request,
    a_booking_costs_what_its_quote_said,
    a_quote_of_an_unknown_property_is_not_found,
    a_quote_for_no_guests_or_backwards_dates_is_refused,
);

fn request(property: &str, check_in: &str, check_out: &str, guests: u32) -> QuoteRequest {
    QuoteRequest {
        property: property.parse().expect("a property slug"),
        check_in: d(check_in),
        check_out: d(check_out),
        guests,
        children: 0,
        pets: 0,
        promo_code: None,
    }
}

fn codes(problems: &[Problem]) -> Vec<&'static str> {
    problems.iter().map(Problem::code).collect()
}

fn the_contract_example_is_priced_to_the_cent<S: Store>(h: &Harness<S>) {
    let q = h.quote(&request("sea-view", "2026-12-20", "2026-12-27", 3)).unwrap();
    assert_eq!((q.nights, q.guests, q.currency.as_str()), (7, 3, "USD"));
    assert_eq!((q.nightly.len(), q.nightly[0].date, q.nightly[0].price), (7, d("2026-12-20"), 15_000));
    assert_eq!(
        (q.accommodation, q.discount, q.extra_guest_fee, q.cleaning_fee, q.taxes, q.total),
        (111_000, 11_100, 14_000, 6_000, 14_388, 134_288)
    );
    assert!(q.available && q.problems.is_empty());
}

fn a_quote_lists_taken_nights_and_is_still_priced<S: Store>(h: &Harness<S>) {
    h.book("sea-view", "2026-12-24", "2026-12-26", 2);
    let q = h.quote(&request("sea-view", "2026-12-20", "2026-12-27", 3)).unwrap();
    assert_eq!(q.problems, [Problem::NightsTaken { dates: vec![d("2026-12-24"), d("2026-12-25")] }]);
    assert!(!q.available);
    assert_eq!(q.total, 134_288);
    let json = serde_json::to_value(&q.problems).unwrap();
    assert_eq!(json, serde_json::json!([{"code": "dates_unavailable", "dates": ["2026-12-24", "2026-12-25"]}]));
}

fn each_broken_stay_rule_is_a_problem_with_its_code<S: Store>(h: &Harness<S>) {
    let cases: [(&str, &str, u32, &[&str]); 6] = [
        ("2026-12-20", "2026-12-21", 2, &["min_nights"]),
        ("2027-01-01", "2027-02-01", 2, &["max_nights"]), // 31 nights, at most 28
        ("2026-12-20", "2026-12-23", 5, &["max_guests"]),
        ("2026-11-21", "2026-11-24", 2, &["past_dates"]),
        ("2026-11-21", "2026-11-22", 5, &["min_nights", "max_guests", "past_dates"]),
        ("2026-11-22", "2026-11-24", 4, &[]), // arriving today with the most guests is fine
    ];
    for (check_in, check_out, guests, want) in cases {
        let q = h.quote(&request("sea-view", check_in, check_out, guests)).unwrap();
        assert_eq!(codes(&q.problems), want, "{check_in}..{check_out} x{guests}");
        assert_eq!(q.available, want.is_empty());
        assert!(q.total > 0, "a stay that breaks a rule is still priced");
    }
}

fn a_stay_follows_the_minimum_of_its_first_night<S: Store>(h: &Harness<S>) {
    // The loft's Summer holidays (from 2026-12-20) ask 2 nights; before them, 1 is enough.
    let starts_in_season = h.quote(&request("harbour-loft", "2026-12-20", "2026-12-21", 2)).unwrap();
    assert_eq!(starts_in_season.problems, [Problem::MinNights { limit: 2 }]);
    let starts_before = h.quote(&request("harbour-loft", "2026-12-19", "2026-12-21", 2)).unwrap();
    assert!(starts_before.available, "{:?}", starts_before.problems);
    assert_eq!(starts_before.accommodation, 12_000 + 16_000, "each night at its own season's rate");
}

fn guests_default_to_one_in_a_quote_request<S: Store>(h: &Harness<S>) {
    let body = r#"{"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27"}"#;
    let req: QuoteRequest = serde_json::from_str(body).unwrap();
    assert_eq!(req.guests, 1);
    let q = h.quote(&req).unwrap();
    assert_eq!((q.guests, q.extra_guest_fee), (1, 0));
}

fn a_booking_costs_what_its_quote_said<S: Store>(h: &Harness<S>) {
    let q = h.quote(&request("alpine-cabin", "2027-01-04", "2027-01-12", 6)).unwrap();
    assert!(q.available, "{:?}", q.problems);
    let b = h.book("alpine-cabin", "2027-01-04", "2027-01-12", 6);
    assert_eq!(b.total, q.total);
}

fn a_quote_of_an_unknown_property_is_not_found<S: Store>(h: &Harness<S>) {
    let got = h.quote(&request("nowhere", "2026-12-20", "2026-12-27", 2));
    assert!(matches!(got, Err(Error::NotFound(NotFound::Property(_)))), "{got:?}");
}

fn a_quote_for_no_guests_or_backwards_dates_is_refused<S: Store>(h: &Harness<S>) {
    assert_eq!(
        faults(h.quote(&request("sea-view", "2026-12-20", "2026-12-27", 0))),
        [("guests".to_owned(), "invalid")]
    );
    let backwards = h.quote(&request("sea-view", "2026-12-27", "2026-12-20", 2));
    assert_eq!(faults(backwards), [("checkOut".to_owned(), "invalid_range")]);
}
