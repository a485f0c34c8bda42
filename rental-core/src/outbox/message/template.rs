//! What a booking gives its messages' templates: the variables of each kind
//! read from the booking and its property, as people read them. The template
//! language, the built-in wording and the checks are `crate::wording::template`,
//! re-exported here under the paths embedders know.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::basics::locale::Locale;
use crate::bookings::booking::{Booking, CancelledBy, PaymentStatus};
use crate::properties::property::Property;

pub use crate::wording::template::*;

use super::MessageKind;

/// What a message's templates read: the booking and the property, as people
/// read them (dates in words, times in the property's zone, money with its sign).
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The booking.
    pub booking: &'a Booking,
    /// Its property.
    pub property: &'a Property,
    /// The public URL of the server, without a trailing slash (for links), if known.
    pub base_url: Option<&'a str>,
    /// The booking's stay page (docs/API.md section 24), absolute, if known.
    pub stay_url: Option<&'a str>,
}

/// The language a message of `kind` about `booking` is written in: the
/// guest's (`locale`), or for the host's kinds the property's `language`.
pub fn locale_of(kind: MessageKind, booking: &Booking, property: &Property) -> Locale {
    if kind.is_for_host() { property.messages.language } else { booking.locale }
}

/// `kind` about `booking` at `property` rendered in its language ([`locale_of`]),
/// with the property's wording of that language where it has some.
pub fn render_for(kind: MessageKind, facts: Facts<'_>) -> Result<Rendered, TemplateError> {
    let locale = locale_of(kind, facts.booking, facts.property);
    render(locale, kind, facts.property.messages.custom(kind, locale), &context(kind, facts))
}

/// The variables of `kind` for `facts` (see [`COMMON_VARIABLES`] and [`kind_variables`]),
/// dates, times and money written in the message's language ([`locale_of`]).
/// The door code is given to `check_in_instructions` alone.
pub fn context(kind: MessageKind, facts: Facts<'_>) -> BTreeMap<&'static str, serde_json::Value> {
    context_with(kind, facts, &|_| true)
}

/// The variables of [`context`] that `wanted` names, the others not even written.
pub(crate) fn context_with(
    kind: MessageKind,
    facts: Facts<'_>,
    wanted: &dyn Fn(&str) -> bool,
) -> BTreeMap<&'static str, serde_json::Value> {
    let Facts { booking: b, property: p, base_url, stay_url } = facts;
    let l = locale_of(kind, b, p);
    let mut c = BTreeMap::new();
    let mut put = |name: &'static str, value: &dyn Fn() -> serde_json::Value| {
        if wanted(name) {
            c.insert(name, value());
        }
    };
    put("guest_name", &|| json!(b.guest_name));
    put("guest_email", &|| json!(b.guest_email));
    put("booking_code", &|| json!(b.code.as_str()));
    put("property_name", &|| json!(p.name));
    put("check_in", &|| json!(l.long_date(b.check_in())));
    put("check_out", &|| json!(l.long_date(b.check_out())));
    put("check_in_time", &|| json!(l.time(p.stay_rules.check_in_time, p.timezone)));
    put("check_out_time", &|| json!(l.time(p.stay_rules.check_out_time, p.timezone)));
    put("nights", &|| json!(b.nights));
    put("guests", &|| json!(b.guests));
    put("total", &|| json!(l.money(b.total, &b.currency)));
    put("contact_email", &|| json!(p.messages.contact_email));
    put("booking_page_url", &|| match base_url {
        Some(base) if p.booking_page.enabled => json!(format!("{base}/book/{}", p.slug.as_str())),
        _ => json!(""),
    });
    put("status", &|| json!(b.status.to_string()));
    put("stay_url", &|| json!(stay_url.unwrap_or_default()));
    match kind {
        MessageKind::HostRequest => {
            put("notes", &|| json!(b.notes.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join("; ")));
            put("source", &|| json!(b.source.as_str()));
        }
        MessageKind::HostRequestExpiring => put("source", &|| json!(b.source.as_str())),
        MessageKind::PaymentFailed => put("balance_due", &|| json!(l.money(b.money.balance_due, &b.currency))),
        MessageKind::Cancelled => {
            put("cancel_reason", &|| json!(b.cancel_reason.clone().unwrap_or_default()));
            // A lapsed request, not the system's other cancellations (an overdue payment).
            put("expired", &|| {
                json!(b.cancelled_by == Some(CancelledBy::System) && b.payment_status == PaymentStatus::Expired)
            });
        }
        MessageKind::CheckInInstructions => {
            let window = || crate::stays::access::window(p, b.check_in(), b.check_out(), b.visit.checked_out_at);
            put("door_code", &|| {
                json!(b.visit.access.as_ref().map_or(p.access.door_code.as_str(), |a| a.code.as_str()))
            });
            put("access_from", &|| json!(local_moment(l, p, window().0)));
            put("access_until", &|| json!(local_moment(l, p, window().1)));
            put("wifi_name", &|| json!(p.access.wifi_ssid));
            put("arrival_notes", &|| json!(p.access.arrival_notes));
        }
        _ => {}
    }
    c
}

/// `Sunday 20 December 2026, 15:00 Lisbon time` on the property's wall
/// clock, its time written as the property's page writes it, the zone named
/// (a guest travelling from another zone reads which clock is meant); in
/// German `Sonntag, 20. Dezember 2026, 15:00 Uhr (Ortszeit Lisbon)`.
fn local_moment(l: Locale, p: &Property, at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&p.timezone);
    let time = l.time(crate::ClockTime(local.time()), p.timezone);
    let city = crate::basics::clock_time::zone_city(p.timezone);
    let date = l.long_date(local.date_naive());
    match l {
        Locale::De => format!("{date}, {time} (Ortszeit {city})"),
        _ => format!("{date}, {time} {city} time"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::booking::Status;
    use crate::demo;

    fn custom(subject: &str, text: &str, html: &str) -> MessageTemplate {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        MessageTemplate {
            subject: opt(subject),
            text: opt(text),
            html: opt(html),
            enabled: true,
            locales: BTreeMap::new(),
        }
    }

    fn facts_render(kind: MessageKind, booking: &Booking, property: &Property) -> Rendered {
        let c =
            context(kind, Facts { booking, property, base_url: None, stay_url: Some("https://r.example/stay/X.1") });
        render(booking.locale, kind, property.messages.custom(kind, booking.locale), &c).unwrap()
    }

    #[test]
    fn a_subject_from_the_variables_it_reads_is_the_subject_from_all_of_them() {
        let p = demo::sea_view();
        let mut b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        b.cancel_reason = Some("Plans changed".into());
        let sources = [
            None,
            Some("{{ guest_name }}{% if expired is defined and expired %} lapsed{% endif %}, {{ check_in }}"),
            Some("{% set n = nights %}{{ n }} nights at {{ property_name | upper }}"),
            Some("{{ no_such_variable }}"),
        ];
        for kind in MessageKind::ALL {
            for source in sources {
                let custom = source.map(|s| Parts { subject: Some(s), text: None, html: None });
                let facts = Facts { booking: &b, property: &p, base_url: Some("https://r.example"), stay_url: None };
                let all = subject(b.locale, kind, custom, &context(kind, facts));
                let read = subject_with(b.locale, kind, custom, |wanted| context_with(kind, facts, wanted));
                assert_eq!(format!("{read:?}"), format!("{all:?}"), "{kind} {source:?}");
            }
        }
    }

    #[test]
    fn payment_failed_says_what_is_left_to_pay_and_links_the_stay_page() {
        let p = demo::sea_view();
        let mut b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        b.money.balance_due = 67_144;
        let r = facts_render(MessageKind::PaymentFailed, &b, &p);
        assert!(r.text.contains("$671.44 is still to pay"), "{}", r.text);
        assert!(r.text.contains("Your stay page: https://r.example/stay/X.1"), "{}", r.text);
        assert!(r.html.contains("<a href=\"https:&#x2f;&#x2f;r.example&#x2f;stay&#x2f;X.1\">"), "{}", r.html);
    }

    #[test]
    fn an_overdue_cancellation_is_not_worded_as_a_lapsed_request() {
        let p = demo::sea_view();
        let mut b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        (b.status, b.cancelled_by, b.cancel_reason) =
            (Status::Cancelled, Some(CancelledBy::System), Some("payment_overdue".into()));
        let r = facts_render(MessageKind::Cancelled, &b, &p);
        assert!(r.subject.contains("is cancelled") && !r.text.contains("lapsed"), "{}", r.text);
    }

    #[test]
    fn every_builtin_renders_and_checks_clean() {
        let all: BTreeMap<MessageKind, MessageTemplate> = MessageKind::ALL
            .into_iter()
            .map(|k| (k, custom(builtin(k, Part::Subject), builtin(k, Part::Text), builtin(k, Part::Html))))
            .collect();
        assert_eq!(check(&all), Vec::new());
        let p = demo::sea_view();
        let b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        for kind in MessageKind::ALL {
            let r = facts_render(kind, &b, &p);
            assert!(!r.subject.is_empty() && !r.text.is_empty() && r.html.starts_with('<'), "{kind}");
            assert_eq!(r.text.contains("4821"), kind == MessageKind::CheckInInstructions, "door code in {kind}");
        }
    }

    #[test]
    fn the_check_samples_are_the_variables_a_booking_gives() {
        let p = demo::sea_view();
        let mut b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        b.cancel_reason = Some("Plans changed".into());
        for kind in MessageKind::ALL {
            let real =
                context(kind, Facts { booking: &b, property: &p, base_url: Some("https://r.example"), stay_url: None });
            let sample = crate::wording::sample::context(kind);
            let shape = |c: &BTreeMap<&'static str, serde_json::Value>| -> Vec<(&'static str, &'static str)> {
                let kind_of = |v: &serde_json::Value| match v {
                    serde_json::Value::Bool(_) => "bool",
                    serde_json::Value::Number(_) => "number",
                    serde_json::Value::String(_) => "string",
                    _ => "other",
                };
                c.iter().map(|(name, v)| (*name, kind_of(v))).collect()
            };
            assert_eq!(shape(&sample), shape(&real), "{kind}");
        }
    }

    #[test]
    fn html_escapes_values_and_subjects_stay_one_line() {
        let mut p = demo::sea_view();
        p.name = "<script>alert(1)</script> & Co".into();
        let mut b = demo::sample_booking(&p, "2026-12-20".parse().unwrap());
        b.guest_name = "Eve\r\nBcc: victim@example.com\u{2028}X".into();
        p.messages.templates.insert(MessageKind::Confirmed, custom("{{ guest_name }} at {{ property_name }}", "", ""));
        let r = facts_render(MessageKind::Confirmed, &b, &p);
        assert!(!r.html.contains("<script>") && r.html.contains("&lt;script&gt;"), "{}", r.html);
        assert!(r.text.contains("<script>"), "text is not escaped");
        assert!(!r.subject.contains(['\r', '\n', '\u{2028}']), "{:?}", r.subject);
        assert!(r.subject.starts_with("Eve Bcc: victim@example.com X at"), "{:?}", r.subject);
    }

    #[test]
    fn a_german_booking_reads_german_built_ins_or_the_host_s_german_wording() {
        let all: BTreeMap<MessageKind, MessageTemplate> = MessageKind::ALL
            .into_iter()
            .map(|k| {
                let de = Wording {
                    subject: Some(builtin_in(Locale::De, k, Part::Subject).into()),
                    text: Some(builtin_in(Locale::De, k, Part::Text).into()),
                    html: Some(builtin_in(Locale::De, k, Part::Html).into()),
                };
                (k, MessageTemplate { locales: BTreeMap::from([(Locale::De, de)]), ..custom("", "", "") })
            })
            .collect();
        assert_eq!(check(&all), Vec::new(), "every German built-in checks clean");
        let mut p = demo::sea_view();
        p.currency = "EUR".into();
        let mut b = demo::sample_booking(&p, "2026-12-12".parse().unwrap());
        (b.locale, b.total, b.currency) = (Locale::De, 123_450, "EUR".into());
        let r = facts_render(MessageKind::Confirmed, &b, &p);
        assert!(r.subject.contains("ist bestätigt"), "{}", r.subject);
        assert!(r.text.contains("vom Samstag, 12. Dezember 2026 bis Montag, 14. Dezember 2026"), "{}", r.text);
        assert!(r.text.contains("1.234,50 €") && r.text.contains("15:00 Uhr"), "{}", r.text);
        let mut german = custom("Englisch {{ guest_name }}", "", "");
        german
            .locales
            .insert(Locale::De, Wording { subject: Some("Willkommen {{ guest_name }}".into()), ..Wording::default() });
        p.messages.templates.insert(MessageKind::Confirmed, german);
        let r = facts_render(MessageKind::Confirmed, &b, &p);
        assert_eq!(r.subject, "Willkommen Ada Lovelace");
        assert!(r.text.contains("ist bestätigt"), "the German text the host left out is the built-in German one");
        b.locale = Locale::En;
        assert_eq!(facts_render(MessageKind::Confirmed, &b, &p).subject, "Englisch Ada Lovelace");
        let mut bad = custom("", "", "");
        bad.locales.insert(Locale::De, Wording { text: Some("{{ tuer_code }}".into()), ..Wording::default() });
        let errors = check(&BTreeMap::from([(MessageKind::Confirmed, bad)]));
        assert_eq!(errors[0].field, "messages.confirmed.locales.de.text", "{errors:?}");
    }

    #[test]
    fn dates_read_as_people_write_them() {
        assert_eq!(Locale::En.long_date("2026-12-20".parse().unwrap()), "Sunday 20 December 2026");
    }
}
