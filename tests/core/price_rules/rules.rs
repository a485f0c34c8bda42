//! One table per rule of section 25, each case on one side of a boundary.

use rental_core::Tz;
use rental_core::calendar::CalendarEntry;
use rental_core::pricing::{Asked, DiscountKind, Facts, Problem, PromoRefusal, quote};
use rental_core::property::{
    EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax, Weekdays,
};

use super::{NOW, at, booked, codes, d, house, quote_at, stay};

fn days(json: &str) -> Weekdays {
    serde_json::from_str(json).unwrap()
}

#[test]
fn stays_start_and_end_only_on_the_weekdays_allowed() {
    let mut p = house();
    p.stay_rules.check_in_days = days(r#"["sat"]"#);
    p.stay_rules.check_out_days = days(r#"["sat", "sun"]"#);
    let cases: [(&str, &str, &[&str]); 5] = [
        ("2026-12-19", "2026-12-26", &[]),                // Saturday to Saturday
        ("2026-12-19", "2026-12-27", &[]),                // Saturday to Sunday
        ("2026-12-18", "2026-12-26", &["check_in_day"]),  // a Friday arrival
        ("2026-12-19", "2026-12-25", &["check_out_day"]), // a Friday departure
        ("2026-12-20", "2026-12-25", &["check_in_day", "check_out_day"]),
    ];
    for (a, b, want) in cases {
        let q = quote_at(&p, &Asked::stay(stay(a, b), 2), NOW, &[]);
        assert_eq!(codes(&q), want, "{a}..{b}");
    }
    let q = quote_at(&p, &Asked::stay(stay("2026-12-18", "2026-12-26"), 2), NOW, &[]);
    let json = serde_json::to_value(&q.problems).unwrap();
    assert_eq!(json, serde_json::json!([{"code": "check_in_day", "allowed": ["sat"]}]));
}

#[test]
fn advance_notice_counts_hours_to_the_check_in_instant_across_dst() {
    let mut p = house(); // check-in 15:00 in Lisbon
    p.stay_rules.advance_notice_hours = 48;
    let cases = [
        // now, check-in, earliest when refused
        ("2026-11-22T15:00:00Z", "2026-11-24", None), // exactly 48 hours
        ("2026-11-22T15:00:01Z", "2026-11-24", Some("2026-11-25")),
        ("2026-11-22T12:00:00Z", "2026-11-23", Some("2026-11-24")),
        // Lisbon moves to summer time on 2027-03-28: 15:00 that day is 14:00 UTC.
        ("2027-03-26T14:00:00Z", "2027-03-28", None),
        ("2027-03-26T14:00:01Z", "2027-03-28", Some("2027-03-29")),
    ];
    for (now, check_in, earliest) in cases {
        let check_out = d(check_in).succ_opt().unwrap().to_string();
        let q = quote_at(&p, &Asked::stay(stay(check_in, &check_out), 2), now, &[]);
        let want: Vec<Problem> =
            earliest.map(|e| Problem::AdvanceNotice { hours: 48, earliest: d(e) }).into_iter().collect();
        assert_eq!(q.problems, want, "{now} -> {check_in}");
    }
}

#[test]
fn today_is_the_property_s_own_across_midnight() {
    let mut p = house();
    p.timezone = Tz::Pacific__Auckland;
    // 12:00 UTC on New Year's Eve is already 2027-01-01 in Auckland.
    let cases = [("2026-12-31", &["past_dates"][..]), ("2027-01-01", &[][..])];
    for (check_in, want) in cases {
        let check_out = d(check_in).succ_opt().unwrap().to_string();
        let q = quote_at(&p, &Asked::stay(stay(check_in, &check_out), 2), "2026-12-31T12:00:00Z", &[]);
        assert_eq!(codes(&q), want, "{check_in}");
    }
}

#[test]
fn the_booking_window_ends_check_ins_that_many_days_ahead() {
    let mut p = house();
    p.stay_rules.booking_window_days = Some(30);
    let cases = [("2026-12-22", true), ("2026-12-23", false)];
    for (check_in, ok) in cases {
        let check_out = d(check_in).succ_opt().unwrap().to_string();
        let q = quote_at(&p, &Asked::stay(stay(check_in, &check_out), 2), NOW, &[]);
        let want = if ok { vec![] } else { vec![Problem::BeyondHorizon { last: d("2026-12-22") }] };
        assert_eq!(q.problems, want, "{check_in}");
    }
}

#[test]
fn preparation_nights_are_kept_free_before_and_after_every_stay() {
    let mut p = house();
    p.stay_rules.preparation_nights = 1;
    let taken = [booked("2026-12-10", "2026-12-15")];
    let cases: [(&str, &str, &[&str]); 4] = [
        ("2026-12-16", "2026-12-19", &[]),
        ("2026-12-15", "2026-12-19", &["2026-12-15"]), // the night after departure prepares
        ("2026-12-05", "2026-12-09", &[]),
        ("2026-12-05", "2026-12-10", &["2026-12-09"]), // the night before arrival prepares
    ];
    for (a, b, want) in cases {
        let q = quote_at(&p, &Asked::stay(stay(a, b), 2), NOW, &taken);
        let want: Vec<Problem> = (!want.is_empty())
            .then(|| Problem::NightsTaken { dates: want.iter().map(|s| d(s)).collect() })
            .into_iter()
            .collect();
        assert_eq!(q.problems, want, "{a}..{b}");
    }
}

/// The calendar, the stay, the problems and the discount applied.
type GapCase<'a> = (&'a [CalendarEntry], &'a str, &'a str, &'a [&'a str], Option<DiscountKind>);

#[test]
fn a_stay_that_exactly_fills_a_short_gap_may_be_shorter_and_is_discounted() {
    let mut p = house();
    p.stay_rules.min_nights = 3;
    p.pricing.rules = PriceRules::default().gap_fill(GapFill { max_gap_nights: 3, min_nights: 2, discount: 2_000 });
    let three = [booked("2026-12-01", "2026-12-10"), booked("2026-12-13", "2026-12-20")]; // 10, 11, 12 free
    let two = [booked("2026-12-01", "2026-12-10"), booked("2026-12-12", "2026-12-20")]; // 10, 11 free
    let one = [booked("2026-12-01", "2026-12-10"), booked("2026-12-11", "2026-12-20")]; // 10 free
    let four = [booked("2026-12-01", "2026-12-10"), booked("2026-12-14", "2026-12-20")]; // 10 to 13 free
    let cases: [GapCase<'_>; 6] = [
        (&three, "2026-12-10", "2026-12-13", &[], Some(DiscountKind::GapFill)),
        (&two, "2026-12-10", "2026-12-12", &[], Some(DiscountKind::GapFill)), // 2 nights, relieved
        (&three, "2026-12-10", "2026-12-12", &["min_nights"], None),          // does not fill it
        (&one, "2026-12-10", "2026-12-11", &["min_nights"], Some(DiscountKind::GapFill)), // below the gap minimum
        (&four, "2026-12-10", "2026-12-14", &[], None),                       // a gap too long
        (&[], "2026-12-10", "2026-12-12", &["min_nights"], None),
    ];
    for (calendar, a, b, want, kind) in cases {
        let q = quote_at(&p, &Asked::stay(stay(a, b), 2), NOW, calendar);
        assert_eq!((codes(&q), q.discount_kind), (want.to_vec(), kind), "{a}..{b}");
        if kind.is_some() {
            assert_eq!(q.discount, (q.accommodation * 2_000 + 5_000) / 10_000);
        }
    }
    let q = quote_at(&p, &Asked::stay(stay("2026-12-10", "2026-12-11"), 2), NOW, &one);
    assert_eq!(q.problems, [Problem::MinNights { limit: 2 }], "the relieved minimum is the one named");
}

#[test]
fn lead_time_adjusts_each_night_by_days_to_check_in_the_first_match_winning() {
    let mut p = house();
    p.pricing.nightly_rate = 10_001;
    p.pricing.weekend_rate = None;
    p.pricing.rules = PriceRules::default()
        .lead_time(LeadTimeAdjustment { within_days: Some(3), beyond_days: None, adjust: -2_500 })
        .lead_time(LeadTimeAdjustment { within_days: Some(10), beyond_days: None, adjust: -1_000 })
        .lead_time(LeadTimeAdjustment { within_days: None, beyond_days: Some(270), adjust: 2_000 });
    let cases = [
        ("2026-11-25", 7_501), // 3 days ahead: 10 001 - 2 500.25
        ("2026-11-26", 9_001), // 4 days: the second entry
        ("2026-12-02", 9_001), // 10 days
        ("2026-12-03", 10_001),
        ("2027-08-18", 10_001), // 269 days
        ("2027-08-19", 12_001), // 270 days: + 2 000.2
    ];
    for (check_in, price) in cases {
        let check_out = d(check_in).succ_opt().unwrap().to_string();
        let q = quote_at(&p, &Asked::stay(stay(check_in, &check_out), 2), NOW, &[]);
        assert_eq!((q.nightly[0].base, q.nightly[0].price, q.accommodation), (10_001, price, price), "{check_in}");
    }
}

#[test]
fn the_stay_length_discount_is_the_entry_with_the_largest_minimum_reached() {
    let mut p = house();
    p.pricing.rules = PriceRules::default().length_of_stay(vec![
        LengthOfStayDiscount { min_nights: 3, discount: 500 },
        LengthOfStayDiscount { min_nights: 7, discount: 1_000 },
    ]);
    let cases = [(2, 0), (3, 500), (6, 500), (7, 1_000), (20, 1_000)];
    for (nights, bp) in cases {
        let s = rental_core::Stay::new(d("2027-01-04"), d("2027-01-04") + chrono::Days::new(nights)).unwrap();
        let q = quote_at(&p, &Asked::stay(s, 2), NOW, &[]);
        assert_eq!(q.discount, (q.accommodation * bp + 5_000) / 10_000, "{nights} nights");
        assert_eq!(q.discount_kind, (bp > 0).then_some(DiscountKind::LengthOfStay), "{nights} nights");
    }
}

#[test]
fn the_early_bird_discount_starts_that_many_days_ahead() {
    let mut p = house();
    p.pricing.rules = PriceRules::default().early_bird(EarlyBirdDiscount { min_days_before: 90, discount: 500 });
    for (check_in, kind) in [("2027-02-19", None), ("2027-02-20", Some(DiscountKind::EarlyBird))] {
        let q = quote_at(&p, &Asked::stay(stay(check_in, "2027-02-23"), 2), NOW, &[]);
        assert_eq!(q.discount_kind, kind, "{check_in}");
    }
}

#[test]
fn only_the_largest_discount_applies_and_ties_go_in_the_documented_order() {
    let base = |los: u32, early: u32, promo: u32| {
        let mut p = house();
        p.pricing.rules = PriceRules::default()
            .length_of_stay(vec![LengthOfStayDiscount { min_nights: 3, discount: los }])
            .early_bird(EarlyBirdDiscount { min_days_before: 30, discount: early })
            .promo(PromoCode::new("SAVE", promo));
        p
    };
    let cases = [
        ((1_000, 1_000, 1_000), Some(DiscountKind::LengthOfStay), 1_000),
        ((500, 1_000, 1_000), Some(DiscountKind::EarlyBird), 1_000),
        ((500, 700, 1_500), Some(DiscountKind::Promo), 1_500),
        ((0, 0, 0), None, 0),
    ];
    for ((los, early, promo), kind, bp) in cases {
        let asked = Asked { promo_code: Some("save"), ..Asked::stay(stay("2027-01-04", "2027-01-08"), 2) };
        let q = quote_at(&base(los, early, promo), &asked, NOW, &[]);
        assert_eq!(
            (q.discount_kind, q.discount),
            (kind, (q.accommodation * bp + 5_000) / 10_000),
            "{los}/{early}/{promo}"
        );
        assert!(q.problems.is_empty());
    }
}

#[test]
fn a_promo_code_that_cannot_be_used_is_a_problem_with_its_reason() {
    let mut p = house();
    let mut winter = PromoCode::new("WINTER", 1_000);
    (winter.valid_from, winter.valid_to) = (Some(d("2026-11-01")), Some(d("2026-11-30")));
    (winter.stay_from, winter.stay_to) = (Some(d("2027-01-01")), Some(d("2027-02-28")));
    (winter.min_nights, winter.max_uses) = (Some(3), Some(5));
    p.pricing.rules = PriceRules::default().promo(winter);
    let cases = [
        ("WINTER", NOW, "2027-01-04", "2027-01-07", 4, None),
        ("winter", NOW, "2027-02-28", "2027-03-03", 4, None), // any case; the last check-in day
        ("SUMMER", NOW, "2027-01-04", "2027-01-07", 0, Some(PromoRefusal::Unknown)),
        ("WINTER", "2026-10-31T12:00:00Z", "2027-01-04", "2027-01-07", 0, Some(PromoRefusal::NotYetValid)),
        ("WINTER", "2026-11-30T23:59:00Z", "2027-01-04", "2027-01-07", 0, None), // still 30 November
        ("WINTER", "2026-12-01T00:00:00Z", "2027-01-04", "2027-01-07", 0, Some(PromoRefusal::Expired)),
        ("WINTER", NOW, "2026-12-31", "2027-01-03", 0, Some(PromoRefusal::StayDates)),
        ("WINTER", NOW, "2027-01-04", "2027-01-06", 0, Some(PromoRefusal::MinNights)),
        ("WINTER", NOW, "2027-01-04", "2027-01-07", 5, Some(PromoRefusal::UsedUp)),
    ];
    for (code, now, a, b, uses, refusal) in cases {
        let asked = Asked { promo_code: Some(code), ..Asked::stay(stay(a, b), 2) };
        let q = quote(&p, &asked, &Facts { now: at(now), calendar: &[], promo_uses: uses });
        let want: Vec<Problem> = refusal.map(|reason| Problem::PromoCode { reason }).into_iter().collect();
        assert_eq!(q.problems, want, "{code} at {now} for {a}..{b} after {uses} uses");
        assert_eq!(q.discount_kind, refusal.is_none().then_some(DiscountKind::Promo), "{code} {a}");
    }
}

#[test]
fn the_tourist_tax_is_per_adult_per_night_up_to_its_cap_and_untaxed() {
    let mut p = house();
    p.pricing.rules = PriceRules::default().tourist_tax(TouristTax {
        per_person_per_night: 250,
        max_nights: Some(7),
        exempt_under_age: Some(12),
    });
    let cases = [(6, 3, 1, 3_000), (7, 3, 1, 3_500), (10, 3, 1, 3_500), (7, 3, 0, 5_250), (7, 1, 0, 1_750)];
    for (nights, guests, children, tax) in cases {
        let s = rental_core::Stay::new(d("2027-01-04"), d("2027-01-04") + chrono::Days::new(nights)).unwrap();
        let q = quote_at(&p, &Asked { children, ..Asked::stay(s, guests) }, NOW, &[]);
        assert_eq!(q.tourist_tax, tax, "{nights} nights, {guests} guests of whom {children} children");
        let taxed = q.accommodation - q.discount + q.extra_guest_fee + q.cleaning_fee + q.pet_fee;
        assert_eq!(q.taxes, (taxed * 1_000 + 5_000) / 10_000, "the tourist tax is not taxed");
        assert_eq!(q.total, taxed + q.taxes + q.tourist_tax);
    }
}

#[test]
fn pets_pay_the_fee_once_and_no_more_than_allowed_come() {
    let mut p = house();
    p.pricing.rules = PriceRules::default().pets(1_500, 1);
    let cases = [(0, 0, &[][..]), (1, 1_500, &[][..]), (2, 1_500, &["max_pets"][..])];
    for (pets, fee, want) in cases {
        let q = quote_at(&p, &Asked { pets, ..Asked::stay(stay("2027-01-04", "2027-01-08"), 2) }, NOW, &[]);
        assert_eq!((q.pet_fee, codes(&q)), (fee, want.to_vec()), "{pets} pets");
        assert_eq!(
            q.taxes,
            ((q.accommodation + q.cleaning_fee + fee) * 1_000 + 5_000) / 10_000,
            "the pet fee is taxed"
        );
    }
    let none = quote_at(&house(), &Asked { pets: 1, ..Asked::stay(stay("2027-01-04", "2027-01-08"), 2) }, NOW, &[]);
    assert_eq!(none.problems, [Problem::MaxPets { limit: 0 }], "no pets unless the host allows them");
}
