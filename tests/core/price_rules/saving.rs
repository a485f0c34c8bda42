//! Section 25's rules are checked when a property is saved: a fault names its
//! field, a contradiction says why, and nothing is saved.

use rental_core::property::{GapFill, LeadTimeAdjustment, PriceRules, PromoCode, Weekdays};
use rental_core::{Error, MemoryStore, Property, Rental};

use super::{d, house};

fn faults(p: &Property) -> Vec<(String, String)> {
    match p.validate() {
        Ok(()) => Vec::new(),
        Err(Error::Validation(errors)) => errors.into_iter().map(|e| (e.field, e.message)).collect(),
        Err(e) => panic!("not a validation error: {e}"),
    }
}

fn fields(p: &Property) -> Vec<String> {
    faults(p).into_iter().map(|(f, _)| f).collect()
}

#[test]
fn contradictory_rules_are_refused_with_the_reason() {
    let mut p = house();
    p.stay_rules.check_in_days = serde_json::from_str::<Weekdays>(r#"["sat"]"#).unwrap();
    p.stay_rules.check_out_days = serde_json::from_str::<Weekdays>(r#"["sat"]"#).unwrap();
    p.stay_rules.max_nights = 6;
    let message = &faults(&p)[0];
    assert_eq!(message.0, "checkInDays");
    assert!(message.1.contains("sat") && message.1.contains("maxNights"), "{message:?}");
    p.stay_rules.max_nights = 7;
    assert!(faults(&p).is_empty());

    let mut p = house();
    p.stay_rules.min_nights = 2;
    p.pricing.rules = PriceRules::default().gap_fill(GapFill { max_gap_nights: 3, min_nights: 3, discount: 0 });
    assert_eq!(fields(&p), ["gapFill.minNights"], "a gap minimum above the stay minimum");
    p.pricing.rules.gap_fill = Some(GapFill { max_gap_nights: 3, min_nights: 2, discount: 0 });
    assert!(faults(&p).is_empty());
}

#[test]
fn adjustments_below_minus_100_percent_are_refused() {
    for (adjust, ok) in [(-10_000, true), (-10_001, false), (100_000, true), (100_001, false)] {
        let mut p = house();
        p.pricing.rules =
            PriceRules::default().lead_time(LeadTimeAdjustment { within_days: Some(3), beyond_days: None, adjust });
        assert_eq!(fields(&p).is_empty(), ok, "{adjust}");
    }
    let mut p = house();
    p.pricing.rules =
        PriceRules::default().lead_time(LeadTimeAdjustment { within_days: Some(3), beyond_days: Some(9), adjust: 0 });
    assert_eq!(fields(&p), ["leadTimeAdjustments"], "one of withinDays and beyondDays");
}

#[test]
fn the_same_code_may_not_have_overlapping_windows() {
    let window = |code: &str, from: &str, to: &str| {
        let mut p = PromoCode::new(code, 500);
        (p.valid_from, p.valid_to) = (Some(d(from)), Some(d(to)));
        p
    };
    let cases = [
        (window("WINTER", "2026-11-01", "2026-11-30"), window("winter", "2026-11-30", "2026-12-31"), false),
        (window("WINTER", "2026-11-01", "2026-11-30"), window("WINTER", "2026-12-01", "2026-12-31"), true),
        (window("WINTER", "2026-11-01", "2026-11-30"), window("SUMMER", "2026-11-01", "2026-11-30"), true),
        (PromoCode::new("ALWAYS", 500), window("ALWAYS", "2030-01-01", "2030-01-02"), false),
    ];
    for (a, b, ok) in cases {
        let mut p = house();
        p.pricing.rules = PriceRules::default().promo(a.clone()).promo(b.clone());
        assert_eq!(fields(&p).is_empty(), ok, "{} {:?} / {} {:?}", a.code, a.valid_from, b.code, b.valid_from);
        if !ok {
            assert_eq!(fields(&p), ["promoCodes.code"]);
        }
    }
}

#[test]
fn a_property_with_a_bad_rule_is_not_saved_and_the_old_one_stays() {
    let rental = Rental::new(MemoryStore::new());
    rental.import_properties(&[house()]).unwrap();
    let mut bad = house();
    bad.name = "Renamed".into();
    bad.pricing.rules = PriceRules::default().pets(-1, 21);
    let Err(Error::Validation(errors)) = rental.import_properties(&[bad]) else { panic!("saved a bad rule") };
    let named: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(named, ["[0].petFee", "[0].maxPets"]);
    assert_eq!(rental.property("house").unwrap(), house(), "nothing saved");
}

#[test]
fn the_rules_read_and_write_as_flat_json_fields() {
    let json = serde_json::json!({
        "slug": "house", "name": "House", "timezone": "Europe/Lisbon", "maxGuests": 4, "nightlyRate": 10000,
        "checkInDays": ["sat"], "checkOutDays": ["sat"], "minNights": 7, "maxNights": 7,
        "advanceNoticeHours": 48, "bookingWindowDays": 365, "preparationNights": 1,
        "gapFill": {"maxGapNights": 3, "minNights": 1, "discount": 2000},
        "leadTimeAdjustments": [{"withinDays": 3, "adjust": -2500}, {"beyondDays": 270, "adjust": 2000}],
        "lengthOfStayDiscounts": [{"minNights": 3, "discount": 500}],
        "earlyBirdDiscount": {"minDaysBefore": 90, "discount": 500},
        "promoCodes": [{"code": "WINTER", "discount": 1000, "validTo": "2027-02-28", "maxUses": 10}],
        "touristTax": {"perPersonPerNight": 250, "maxNights": 7, "exemptUnderAge": 12},
        "petFee": 1500, "maxPets": 2
    });
    let p: Property = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(faults(&p), []);
    assert_eq!(p.stay_rules.advance_notice_hours, 48);
    assert_eq!(p.pricing.rules.promo_codes[0].max_uses, Some(10));
    let back = serde_json::to_value(&p).unwrap();
    for (key, value) in json.as_object().unwrap() {
        assert_eq!(&back[key], value, "{key}");
    }
    let public = serde_json::to_value(p.public()).unwrap();
    assert!(public.get("promoCodes").is_none(), "codes are the host's to hand out");
    assert_eq!(public["checkInDays"], serde_json::json!(["sat"]));
    let mut wrong = json;
    wrong["checkInDays"] = serde_json::json!(["saturday"]);
    assert!(serde_json::from_value::<Property>(wrong).is_err());
}
