//! The calendar's reasons in a guest's words: why a free day cannot be
//! picked, and the stay rules that grey days out, listed under the months.

use maud::{Markup, html};
use rental_core::property::{Property, Weekdays};

use super::calendar::Why;

/// `why` as a guest reads it beside a day: "check-in on Saturdays only".
pub fn why(why: Why, p: &Property) -> String {
    let rules = &p.stay_rules;
    let nights = |n: u32| format!("{n} night{}", if n == 1 { "" } else { "s" });
    match why {
        Why::CheckInDay => format!("check-in on {} only", weekdays(rules.check_in_days)),
        Why::CheckOutDay => format!("check-out on {} only", weekdays(rules.check_out_days)),
        Why::Notice => format!("too soon: stays need {} hours' notice", rules.advance_notice_hours),
        Why::Window => "too far ahead to book yet".to_owned(),
        Why::Preparation => "kept free to prepare the house".to_owned(),
        Why::TooShort(n) => format!("a gap too short: stays from here are at least {}", nights(n)),
        Why::MinNights(n) => format!("too short: this stay is at least {}", nights(n)),
        Why::MaxNights(n) => format!("too long: stays are at most {}", nights(n)),
        Why::Gap(n) => format!("a short gap: bookable from {}", nights(n)),
    }
}

/// The rules that grey out days, one line each; nothing when none is set.
pub fn rules(p: &Property) -> Markup {
    let r = &p.stay_rules;
    let mut lines = Vec::new();
    if !r.check_in_days.is_all() {
        lines.push(format!("Check-in on {} only.", weekdays(r.check_in_days)));
    }
    if !r.check_out_days.is_all() {
        lines.push(format!("Check-out on {} only.", weekdays(r.check_out_days)));
    }
    if r.advance_notice_hours > 0 {
        lines.push(format!("Book at least {} hours before check-in.", r.advance_notice_hours));
    }
    if let Some(days) = r.booking_window_days {
        lines.push(format!("Check-in at most {days} days from today."));
    }
    if r.preparation_nights > 0 {
        let n = r.preparation_nights;
        lines.push(format!("{n} night{} kept free before and after each stay.", if n == 1 { " is" } else { "s are" }));
    }
    if let Some(gap) = p.pricing.rules.gap_fill {
        let n = gap.min_nights;
        lines.push(format!(
            "Short gaps of up to {} between stays can be booked from {n} night{}.",
            if gap.max_gap_nights == 1 { "1 night".to_owned() } else { format!("{} nights", gap.max_gap_nights) },
            if n == 1 { "" } else { "s" }
        ));
    }
    html! {
        @if !lines.is_empty() {
            ul #day-rules.muted { @for line in &lines { li { (line) } } }
        }
    }
}

/// `Fridays and Saturdays` for `["fri", "sat"]`.
pub fn weekdays(days: Weekdays) -> String {
    let plural = |name: &str| match name {
        "mon" => "Mondays",
        "tue" => "Tuesdays",
        "wed" => "Wednesdays",
        "thu" => "Thursdays",
        "fri" => "Fridays",
        "sat" => "Saturdays",
        _ => "Sundays",
    };
    let names: Vec<String> = days.names().into_iter().map(|n| plural(n).to_owned()).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
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
            assert_eq!(why(reason, &p), words);
        }
        let listed = rules(&p).into_string();
        assert!(listed.contains("<li>Check-in on Fridays and Saturdays only.</li>"), "{listed}");
        assert!(listed.contains("<li>Book at least 48 hours before check-in.</li>"), "{listed}");
        assert_eq!(rules(&demo::sea_view()).into_string(), "", "no rule, no list");
    }
}
