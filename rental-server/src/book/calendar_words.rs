//! The calendar's reasons in a guest's words: why a free day cannot be
//! picked, and the stay rules that grey days out, listed under the months.

use maud::{Markup, html};
use rental_core::Locale;
use rental_core::property::{Property, Weekdays};

use super::calendar::Why;
use crate::lang::words;

/// `why` as a guest reads it beside a day: "check-in on Saturdays only".
pub fn why(why: Why, p: &Property, lang: Locale) -> String {
    let (rules, w) = (&p.stay_rules, words(lang));
    let [gap_too_short, too_short, too_long, gap] = w.why_nights;
    match why {
        Why::CheckInDay => (w.why_days[0])(&weekdays(rules.check_in_days, lang)),
        Why::CheckOutDay => (w.why_days[1])(&weekdays(rules.check_out_days, lang)),
        Why::Notice => (w.why_notice)(rules.advance_notice_hours),
        Why::Window => w.why_window_preparation.0.to_owned(),
        Why::Preparation => w.why_window_preparation.1.to_owned(),
        Why::TooShort(n) => gap_too_short(n),
        Why::MinNights(n) => too_short(n),
        Why::MaxNights(n) => too_long(n),
        Why::Gap(n) => gap(n),
    }
}

/// The rules that grey out days, one line each; nothing when none is set.
pub fn rules(p: &Property, lang: Locale) -> Markup {
    let (r, w) = (&p.stay_rules, words(lang));
    let [notice, window, preparation] = w.rule_counts;
    let mut lines = Vec::new();
    if !r.check_in_days.is_all() {
        lines.push((w.rule_days[0])(&weekdays(r.check_in_days, lang)));
    }
    if !r.check_out_days.is_all() {
        lines.push((w.rule_days[1])(&weekdays(r.check_out_days, lang)));
    }
    if r.advance_notice_hours > 0 {
        lines.push(notice(r.advance_notice_hours));
    }
    if let Some(days) = r.booking_window_days {
        lines.push(window(days));
    }
    if r.preparation_nights > 0 {
        lines.push(preparation(r.preparation_nights));
    }
    if let Some(gap) = p.pricing.rules.gap_fill {
        lines.push((w.rule_gap)(gap.max_gap_nights, gap.min_nights));
    }
    html! {
        @if !lines.is_empty() {
            ul #day-rules.muted { @for line in &lines { li { (line) } } }
        }
    }
}

/// `Fridays and Saturdays` for `["fri", "sat"]` (`freitags und samstags`).
pub fn weekdays(days: Weekdays, lang: Locale) -> String {
    let (plural, and) = words(lang).weekdays_plural;
    let index = |name: &str| ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].iter().position(|d| *d == name);
    let names: Vec<&str> = days.names().into_iter().filter_map(|n| index(n).map(|i| plural[i])).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} {and} {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rental_core::demo;

    #[test]
    fn each_reason_reads_as_words() {
        let mut p = demo::sea_view();
        p.stay_rules.check_in_days = serde_json::from_str(r#"["fri","sat"]"#).unwrap();
        p.stay_rules.advance_notice_hours = 48;
        let cases = [
            (Why::CheckInDay, "check-in on Fridays and Saturdays only"),
            (
                Why::CheckOutDay,
                "check-out on Mondays, Tuesdays, Wednesdays, Thursdays, Fridays, Saturdays and Sundays only",
            ),
            (Why::Notice, "too soon: stays need 48 hours' notice"),
            (Why::Preparation, "kept free to prepare the house"),
            (Why::TooShort(2), "a gap too short: stays from here are at least 2 nights"),
            (Why::Gap(1), "a short gap: bookable from 1 night"),
        ];
        for (reason, words) in cases {
            assert_eq!(why(reason, &p, Locale::En), words);
        }
        let listed = rules(&p, Locale::En).into_string();
        assert!(listed.contains("<li>Check-in on Fridays and Saturdays only.</li>"), "{listed}");
        assert!(listed.contains("<li>Book at least 48 hours before check-in.</li>"), "{listed}");
        assert_eq!(rules(&demo::sea_view(), Locale::En).into_string(), "", "no rule, no list");
        assert_eq!(why(Why::CheckInDay, &p, Locale::De), "Anreise nur freitags und samstags");
    }
}
