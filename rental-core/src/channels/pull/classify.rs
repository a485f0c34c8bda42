//! Reservation or block: what a channel's event summary says it is
//! (docs/API.md section 8), and which events are only check-in/out markers.

use crate::channels::ical::FeedEvent;

/// What an imported event becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// A guest's stay: it becomes a confirmed booking under this guest name.
    Reservation {
        /// The name the summary gives, or `"Reserved"`.
        guest_name: String,
    },
    /// Nights the channel closed without a stay it tells us about.
    Block,
}

/// Summaries the channels use for a reservation, compared trimmed and case-insensitively,
/// each alone or followed by ` - <guest name>`.
const RESERVATION_WORDS: [&str; 3] = ["reserved", "réservée", "booked"];

/// The name a reservation gets when its summary names nobody.
pub const UNNAMED_GUEST: &str = "Reserved";

/// Classifies an event by its summary, with the feed's own `patterns` (case-insensitive,
/// `*` matches any run of characters, the whole summary must match) tried after the
/// channels' wording.
///
/// ```
/// use rental_core::pull::{classify, EventKind};
///
/// assert_eq!(classify(" Reserved - Jane ", &[]), EventKind::Reservation { guest_name: "Jane".into() });
/// assert_eq!(classify("Airbnb (Not available)", &[]), EventKind::Block);
/// assert_eq!(classify("Stay #42", &["stay #*".into()]), EventKind::Reservation { guest_name: "Reserved".into() });
/// ```
pub fn classify(summary: &str, patterns: &[String]) -> EventKind {
    let summary = summary.trim();
    let lower = summary.to_lowercase();
    for word in RESERVATION_WORDS {
        let Some(rest) = lower.strip_prefix(word).map(str::trim_start) else { continue };
        if rest.is_empty() {
            return reservation(UNNAMED_GUEST);
        }
        if rest.starts_with('-') {
            // The words hold no '-', so the first one in the summary is the separator.
            let name = summary.split_once('-').map_or("", |(_, name)| name).trim();
            return reservation(if name.is_empty() { UNNAMED_GUEST } else { name });
        }
    }
    if patterns.iter().any(|p| glob_match(&p.to_lowercase(), &lower)) {
        return reservation(UNNAMED_GUEST);
    }
    EventKind::Block
}

/// A reservation for `name`, without the characters no guest name may hold
/// (a channel's summary is taken as it comes, so they are dropped, not refused).
fn reservation(name: &str) -> EventKind {
    let name = crate::basics::text::scrubbed(name);
    let name = name.trim();
    EventKind::Reservation { guest_name: if name.is_empty() { UNNAMED_GUEST } else { name }.to_owned() }
}

/// Whole-string match where `*` stands for any run of characters.
fn glob_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else { return rest.is_empty() };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Leaves out the check-in and check-out marker events some channel managers add beside each
/// stay (Smoobu): an event whose summary starts with `Check-in` and that starts where another
/// event starts, or starts with `Check-out` and starts where another event ends. Blocking them
/// would close the checkout day.
pub fn without_markers(events: Vec<FeedEvent>) -> Vec<FeedEvent> {
    let is_marker = |e: &FeedEvent, all: &[FeedEvent]| {
        let lower = e.summary.to_lowercase();
        let others = || all.iter().filter(move |o| o.uid != e.uid);
        (lower.starts_with("check-in") && others().any(|o| o.start == e.start && o.end > e.end))
            || (lower.starts_with("check-out") && others().any(|o| o.end == e.start))
    };
    let markers: Vec<bool> = events.iter().map(|e| is_marker(e, &events)).collect();
    events.into_iter().zip(markers).filter(|(_, marker)| !marker).map(|(e, _)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> EventKind {
        EventKind::Reservation { guest_name: name.to_owned() }
    }

    #[test]
    fn the_channels_reservation_wording_is_a_reservation() {
        assert_eq!(classify("Reserved", &[]), named("Reserved"));
        assert_eq!(classify("reserved - Sam & Alex", &[]), named("Sam & Alex"));
        assert_eq!(classify("Réservée - Émile", &[]), named("Émile"));
        assert_eq!(classify("RÉSERVÉE", &[]), named("Reserved"));
        assert_eq!(classify(" BOOKED", &[]), named("Reserved"));
        assert_eq!(classify("Reserved - ", &[]), named("Reserved"));
    }

    #[test]
    fn a_guest_name_from_a_feed_loses_its_control_and_bidi_characters() {
        assert_eq!(classify("Reserved - Jane\u{9b}31m \u{202e}Doe", &[]), named("Jane31m Doe"));
        assert_eq!(classify("Reserved - \u{202e}\r\n", &[]), named("Reserved"));
    }

    #[test]
    fn everything_else_is_a_block() {
        for summary in
            ["Airbnb (Not available)", "Blocked", "CLOSED - Not available", "Provisoire - Eve", "Reservedly", ""]
        {
            assert_eq!(classify(summary, &[]), EventKind::Block, "{summary}");
        }
    }

    #[test]
    fn feed_patterns_match_the_whole_summary_with_stars() {
        let patterns = vec!["*(booking.com)".to_owned(), "guest: *".to_owned()];
        assert_eq!(classify("Ann Example (Booking.com)", &patterns), named("Reserved"));
        assert_eq!(classify("Guest: Bo", &patterns), named("Reserved"));
        assert_eq!(classify("Owner stay", &patterns), EventKind::Block);
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("ab", "abc"));
    }

    fn event(uid: &str, summary: &str, start: &str, end: &str) -> FeedEvent {
        FeedEvent { uid: uid.into(), summary: summary.into(), start: start.parse().unwrap(), end: end.parse().unwrap() }
    }

    #[test]
    fn check_in_and_check_out_markers_beside_a_stay_are_dropped() {
        let events = vec![
            event("s", "Guest (Airbnb)", "2026-10-12", "2026-10-15"),
            event("i", "Check-in: Guest", "2026-10-12", "2026-10-13"),
            event("o", "Check-out: Guest", "2026-10-15", "2026-10-16"),
            event("alone", "Check-in day", "2026-11-01", "2026-11-02"),
        ];
        let kept: Vec<String> = without_markers(events).into_iter().map(|e| e.uid).collect();
        assert_eq!(kept, ["s", "alone"]);
    }
}
