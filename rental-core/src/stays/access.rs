//! Door codes (docs/API.md section 15): a property's code mode, each stay's
//! access window, and fresh per-stay codes unique among overlapping windows.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use crate::basics::clock::{Entropy, random_string};
use crate::properties::local_time::instant;
use crate::properties::property::Property;

// A stay's code is part of its booking's visit, and the settings live with
// the property; their public paths stay here.
pub use crate::bookings::visit::Access;
pub use crate::properties::access_settings::{CODE_LENGTHS, DEFAULT_CODE_LENGTH, DoorCodeMode, MAX_ACCESS_MINUTES};

/// How long a code stays valid after an early `check_out`.
pub const EARLY_CHECK_OUT_GRACE: TimeDelta = TimeDelta::minutes(15);
/// The access window of a stay `arrival..departure` at `property`: from its
/// check-in time less `accessBeforeMinutes` to its check-out time plus
/// `accessAfterMinutes`, ended 15 minutes after an early check-out.
///
/// ```
/// use rental_core::{access::window, demo};
/// let mut p = demo::sea_view(); // Europe/Lisbon, 15:00 to 11:00
/// p.access.access_before_minutes = 60;
/// let (from, until) = window(&p, "2026-12-20".parse().unwrap(), "2026-12-27".parse().unwrap(), None);
/// assert_eq!((from.to_rfc3339(), until.to_rfc3339()),
///            ("2026-12-20T14:00:00+00:00".to_owned(), "2026-12-27T11:00:00+00:00".to_owned()));
/// ```
pub fn window(
    property: &Property,
    arrival: NaiveDate,
    departure: NaiveDate,
    checked_out_at: Option<DateTime<Utc>>,
) -> (DateTime<Utc>, DateTime<Utc>) {
    let (rules, access) = (&property.stay_rules, &property.access);
    let from = instant(property.timezone, arrival, rules.check_in_time)
        - TimeDelta::minutes(access.access_before_minutes.into());
    let until = instant(property.timezone, departure, rules.check_out_time)
        + TimeDelta::minutes(access.access_after_minutes.into());
    let until = checked_out_at.map_or(until, |out| until.min(out + EARLY_CHECK_OUT_GRACE));
    (from, until.max(from))
}

/// A fresh code of `len` digits from `entropy`, different from every code in `taken`.
///
/// The caller passes the codes whose windows overlap the new one; with at most
/// a few hundred of those and 10 000 or more codes to draw from, a handful of
/// draws suffice. When every code of that length is taken the last draw is kept.
pub fn fresh_code(len: u8, taken: &[&str], entropy: &dyn Entropy) -> String {
    let len = usize::from(len.clamp(*CODE_LENGTHS.start(), *CODE_LENGTHS.end()));
    let mut code = random_string(entropy, b"0123456789", len);
    for _ in 0..10_000 {
        if !taken.contains(&code.as_str()) {
            break;
        }
        code = random_string(entropy, b"0123456789", len);
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::clock::OsEntropy;
    use crate::basics::ids::BookingCode;
    use crate::demo;
    use proptest::prelude::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn the_window_follows_the_times_with_minutes_before_and_after() {
        let mut p = demo::sea_view(); // Lisbon, UTC+0 in December
        p.access.access_before_minutes = 90;
        p.access.access_after_minutes = 30;
        let (from, until) = window(&p, d("2026-12-20"), d("2026-12-27"), None);
        assert_eq!((from, until), (at("2026-12-20T13:30:00Z"), at("2026-12-27T11:30:00Z")));
    }

    #[test]
    fn an_early_check_out_ends_the_window_fifteen_minutes_later() {
        let p = demo::sea_view();
        let out = at("2026-12-24T09:00:00Z");
        let (_, until) = window(&p, d("2026-12-20"), d("2026-12-27"), Some(out));
        assert_eq!(until, at("2026-12-24T09:15:00Z"));
        let late = at("2026-12-27T10:55:00Z");
        let (_, until) = window(&p, d("2026-12-20"), d("2026-12-27"), Some(late));
        assert_eq!(until, at("2026-12-27T11:00:00Z"), "never later than the planned end");
    }

    #[test]
    fn codes_are_digits_of_the_length_asked_for() {
        for len in [4, 6, 8] {
            let code = fresh_code(len, &[], &OsEntropy);
            assert_eq!(code.len(), usize::from(len));
            assert!(code.bytes().all(|b| b.is_ascii_digit()), "{code}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Many stays, each issued a code against the codes of the windows it
        /// overlaps: no two overlapping windows ever share a code, even with
        /// the shortest codes and stays piled on the same dates.
        #[test]
        fn codes_are_unique_among_overlapping_windows(
            stays in prop::collection::vec((0u32..20, 1u32..6), 1..120),
            len in 4u8..=5,
        ) {
            let p = demo::sea_view();
            let start = d("2026-12-01");
            let mut issued: Vec<Access> = Vec::new();
            let booking = BookingCode::generate("BK", &OsEntropy);
            for (offset, nights) in stays {
                let arrival = start + chrono::Days::new(offset.into());
                let (valid_from, valid_until) = window(&p, arrival, arrival + chrono::Days::new(nights.into()), None);
                let draft = Access { code: String::new(), valid_from, valid_until, booking: booking.clone() };
                let taken: Vec<&str> = issued.iter().filter(|a| a.overlaps(&draft)).map(|a| a.code.as_str()).collect();
                let code = fresh_code(len, &taken, &OsEntropy);
                issued.push(Access { code, ..draft });
            }
            for (i, a) in issued.iter().enumerate() {
                for b in &issued[i + 1..] {
                    prop_assert!(!(a.overlaps(b) && a.code == b.code), "{a:?} and {b:?} share a code");
                }
            }
        }
    }
}
