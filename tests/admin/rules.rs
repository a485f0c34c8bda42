//! The property editor's stay and price rules over HTTP (docs/API.md section
//! 25): saved through the library, a broken or contradictory rule shown on
//! its field with nothing saved, and the preview quote under unsaved rules.

use rental_core::property::{GapFill, LeadTimeAdjustment, PriceRules, PromoCode, TouristTax, Weekdays};

use crate::client::{Client, server};

const EDIT: &str = "/admin/properties/sea-view/edit";

/// Saturday changeover, two days' notice, a night to prepare, a gap rule,
/// a last-minute cut, a code, a tourist tax and pets.
const RULES: [(&str, &str); 23] = [
    ("checkInDays", "sat"),
    ("checkOutDays", "sat"),
    ("advanceNoticeHours", "48"),
    ("bookingWindowDays", "365"),
    ("preparationNights", "1"),
    ("gapFill.maxGapNights", "3"),
    ("gapFill.minNights", "1"),
    ("gapFill.discount", "20"),
    ("lead.kind", "within"),
    ("lead.days", "3"),
    ("lead.adjust", "-25"),
    ("lead.kind", "beyond"),
    ("lead.days", ""),
    ("lead.adjust", ""),
    ("promo.code", "SUMMER"),
    ("promo.discount", "15"),
    ("promo.maxUses", "10"),
    ("touristTax.perPersonPerNight", "2.50"),
    ("touristTax.maxNights", "5"),
    ("touristTax.exemptUnderAge", "12"),
    ("petFee", "40"),
    ("maxPets", "2"),
    ("weeklyDiscount", "10"),
];

fn form<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut fields = crate::client::SEA_VIEW_FORM.to_vec();
    fields.push(("rulesForm", "yes"));
    fields.extend_from_slice(extra);
    fields
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_saves_every_rule_and_shows_it_again() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let page = client.get(EDIT).await.text();
    assert!(page.contains(r#"name="checkInDays" value="sat" checked"#), "every day is allowed by default");
    client.post(EDIT, &form(&RULES)).await.expect(303);

    let p = s.rental.property("sea-view").unwrap();
    let sat: Weekdays = [chrono::Weekday::Sat].into_iter().collect();
    assert_eq!((p.stay_rules.check_in_days, p.stay_rules.check_out_days), (sat, sat));
    assert_eq!(
        (p.stay_rules.advance_notice_hours, p.stay_rules.booking_window_days, p.stay_rules.preparation_nights),
        (48, Some(365), 1)
    );
    let mut code = PromoCode::new("SUMMER", 1_500);
    code.max_uses = Some(10);
    let expected = PriceRules::default()
        .gap_fill(GapFill { max_gap_nights: 3, min_nights: 1, discount: 2_000 })
        .lead_time(LeadTimeAdjustment { within_days: Some(3), beyond_days: None, adjust: -2_500 })
        .promo(code)
        .tourist_tax(TouristTax { per_person_per_night: 250, max_nights: Some(5), exempt_under_age: Some(12) })
        .pets(4_000, 2);
    assert_eq!(p.pricing.rules, expected);

    let page = client.get(EDIT).await.text();
    for shown in [
        r#"name="checkInDays" value="sat" checked"#,
        r#"name="advanceNoticeHours" value="48""#,
        r#"name="lead.adjust" aria-label="Change" value="-25""#,
        r#"name="promo.code" aria-label="Code" value="SUMMER""#,
        r#"name="touristTax.perPersonPerNight" value="2.50""#,
    ] {
        assert!(page.contains(shown), "{shown}");
    }
    assert!(!page.contains(r#"name="checkInDays" value="fri" checked"#), "Friday is no longer allowed");
}

/// The fields posted, the field marked, and words of the reason.
type Case = (&'static [(&'static str, &'static str)], &'static str, &'static str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_or_contradictory_rule_is_named_on_its_field_and_nothing_is_saved() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let before = s.rental.property("sea-view").unwrap();
    let cases: [Case; 6] = [
        // Six nights never reach the next Saturday.
        (
            &[("checkInDays", "sat"), ("checkOutDays", "sat"), ("maxNights", "6")],
            "checkInDays",
            "a stay starting on sat",
        ),
        // A gap minimum above the stay minimum (2).
        (
            &[("gapFill.maxGapNights", "3"), ("gapFill.minNights", "3"), ("gapFill.discount", "20")],
            "gapFill.minNights",
            "gap fill relaxes the minimum",
        ),
        (
            &[("lead.kind", "within"), ("lead.days", "3"), ("lead.adjust", "-120")],
            "leadTimeAdjustments",
            "leadTimeAdjustments.adjust: must not be below -10000",
        ),
        (&[("lead.kind", "within"), ("lead.days", "soon"), ("lead.adjust", "-20")], "leadTimeAdjustments", "row 1"),
        (&[("promo.code", "NO SPACES"), ("promo.discount", "10")], "promoCodes", "promoCodes.code: must be 1 to 32"),
        (&[("advanceNoticeHours", "a day")], "advanceNoticeHours", "whole number of hours"),
    ];
    for (fields, field, words) in cases {
        let mut all = Vec::new();
        for d in ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] {
            if !fields.iter().any(|(n, _)| *n == "checkInDays") {
                all.push(("checkInDays", d));
            }
            if !fields.iter().any(|(n, _)| *n == "checkOutDays") {
                all.push(("checkOutDays", d));
            }
        }
        all.extend_from_slice(&[("advanceNoticeHours", "0"), ("preparationNights", "0"), ("maxPets", "0")]);
        let mut posted = form(&all);
        posted.retain(|(n, _)| !fields.iter().any(|(f, _)| f == n));
        posted.extend_from_slice(fields);
        for intent in ["save", "preview"] {
            let mut sent = posted.clone();
            sent.extend_from_slice(&[
                ("intent", intent),
                ("previewCheckIn", "2027-01-09"),
                ("previewCheckOut", "2027-01-16"),
                ("previewGuests", "2"),
                ("previewChildren", "0"),
                ("previewPets", "0"),
            ]);
            let r = client.post(EDIT, &sent).await;
            assert_eq!(r.status, 422, "{intent} {fields:?}");
            let text = r.text();
            assert!(text.contains(&format!(r#"data-field="{field}" role="alert""#)), "{intent} {field}: {text}");
            assert!(text.contains(words), "{intent} {field}: {words}");
            assert!(text.contains("Nothing was saved"), "{intent} {field}");
            assert!(!text.contains(r#"id="preview-quote""#), "no preview under broken rules");
        }
    }
    assert_eq!(s.rental.property("sea-view").unwrap(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_preview_prices_a_stay_under_the_rules_in_the_form_without_saving_them() {
    let s = server().await;
    let client = Client::logged_in(&s.http).await;
    let before = s.rental.property("sea-view").unwrap();
    let preview = |check_in: &'static str, check_out: &'static str| {
        let mut fields = form(&RULES);
        fields.extend_from_slice(&[
            ("intent", "preview"),
            ("previewCheckIn", check_in),
            ("previewCheckOut", check_out),
            ("previewGuests", "3"),
            ("previewChildren", "1"),
            ("previewPets", "1"),
        ]);
        fields
    };
    // Saturday 9 to Saturday 16 January 2027: bookable; 2 adults x 2.50 x 5 nights of tourist tax, the pet fee.
    let r = client.post(EDIT, &preview("2027-01-09", "2027-01-16")).await;
    assert_eq!(r.status, 200);
    let page = r.text();
    assert!(page.contains(r#"<p id="preview-verdict">A guest could book this stay.</p>"#), "{page}");
    assert!(page.contains(r#"<td id="preview-tourist-tax">$25.00</td>"#), "{page}");
    assert!(page.contains("<td>Pet fee</td><td>$40.00</td>"), "{page}");
    assert!(page.contains("Nothing was saved"), "the page says the preview is not saved");
    assert!(page.contains(r#"name="touristTax.perPersonPerNight" value="2.50""#), "the form keeps what was typed");

    // A Sunday check-in under the Saturday rule: refused in the guest's words.
    let page = client.post(EDIT, &preview("2027-01-10", "2027-01-16")).await.text();
    assert!(page.contains("A guest could not book this stay:"), "{page}");
    assert!(page.contains("<li>Stays start only on Saturdays.</li>"), "{page}");

    // A preview with unreadable dates names them; nothing was saved by any of it.
    let r = client.post(EDIT, &preview("soon", "2027-01-16")).await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains(r#"data-field="previewCheckIn" role="alert""#));
    assert_eq!(s.rental.property("sea-view").unwrap(), before);
}
