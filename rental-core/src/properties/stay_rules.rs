//! A property's stay rules: how many nights a stay may last, the local times
//! and weekdays guests arrive and leave, notice, booking window, preparation.

use chrono::{NaiveTime, Weekday};

use super::weekdays::Weekdays;
use crate::basics::clock_time::ClockTime;
use crate::basics::stay::MAX_NIGHTS;
use crate::error::FieldError;

/// The longest advance notice a property may ask for: a year, in hours.
pub const MAX_NOTICE_HOURS: u32 = 8_784;
/// The most nights a property may keep free around each stay or block.
pub const MAX_PREPARATION_NIGHTS: u32 = 30;
/// The longest booking window: the booking horizon's 36 months, in days.
pub const MAX_WINDOW_DAYS: u32 = 1_096;

/// How long a stay may be and when it starts and ends, in the property's
/// zone. The default is what a JSON import gives: 1 to 366 nights, check-in
/// at 15:00, check-out at 11:00, any weekday, no notice, no window but the
/// booking horizon, no preparation nights (docs/API.md section 25).
///
/// ```
/// use rental_core::property::StayRules;
///
/// let rules = StayRules::default().nights(2, 28).check_in("16:00".parse()?);
/// assert_eq!((rules.min_nights, rules.check_in_time.to_string()), (2, "16:00".to_owned()));
/// # Ok::<(), rental_core::IdError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StayRules {
    /// Shortest stay outside seasons that set their own.
    pub min_nights: u32,
    /// Longest stay.
    pub max_nights: u32,
    /// Local time of arrival.
    pub check_in_time: ClockTime,
    /// Local time of departure.
    pub check_out_time: ClockTime,
    /// Weekdays a stay may start on (`checkInDays`).
    pub check_in_days: Weekdays,
    /// Weekdays a stay may end on (`checkOutDays`).
    pub check_out_days: Weekdays,
    /// The check-in instant is at least this many hours after now (`advanceNoticeHours`).
    pub advance_notice_hours: u32,
    /// Check-in at most this many days after the property's today; `None`:
    /// the booking horizon alone (`bookingWindowDays`).
    pub booking_window_days: Option<u32>,
    /// Nights kept free before and after every stay or block (`preparationNights`).
    pub preparation_nights: u32,
}

impl Default for StayRules {
    fn default() -> Self {
        StayRules {
            min_nights: 1,
            max_nights: MAX_NIGHTS,
            check_in_time: at(15),
            check_out_time: at(11),
            check_in_days: Weekdays::ALL,
            check_out_days: Weekdays::ALL,
            advance_notice_hours: 0,
            booking_window_days: None,
            preparation_nights: 0,
        }
    }
}

impl StayRules {
    /// Sets the shortest and the longest stay.
    #[must_use]
    pub fn nights(mut self, min: u32, max: u32) -> Self {
        (self.min_nights, self.max_nights) = (min, max);
        self
    }

    /// Sets the local time of arrival.
    #[must_use]
    pub fn check_in(mut self, time: ClockTime) -> Self {
        self.check_in_time = time;
        self
    }

    /// Sets the local time of departure.
    #[must_use]
    pub fn check_out(mut self, time: ClockTime) -> Self {
        self.check_out_time = time;
        self
    }

    /// Sets the weekdays a stay may start on and those it may end on.
    #[must_use]
    pub fn days(mut self, check_in: Weekdays, check_out: Weekdays) -> Self {
        (self.check_in_days, self.check_out_days) = (check_in, check_out);
        self
    }

    /// Sets the advance notice in hours and the booking window in days.
    #[must_use]
    pub fn notice(mut self, hours: u32, window_days: Option<u32>) -> Self {
        (self.advance_notice_hours, self.booking_window_days) = (hours, window_days);
        self
    }

    /// Sets the nights kept free before and after every stay or block.
    #[must_use]
    pub fn preparation(mut self, nights: u32) -> Self {
        self.preparation_nights = nights;
        self
    }

    /// The faults of these rules, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut check = |ok: bool, field: &str, message: String| {
            if !ok {
                errors.push(FieldError::new(field, "invalid", message));
            }
        };
        check((1..=MAX_NIGHTS).contains(&self.min_nights), "minNights", "must be 1 to 366".into());
        check(
            (self.min_nights..=MAX_NIGHTS).contains(&self.max_nights),
            "maxNights",
            "must be minNights to 366".into(),
        );
        check(!self.check_in_days.is_empty(), "checkInDays", "must name at least one day".into());
        check(!self.check_out_days.is_empty(), "checkOutDays", "must name at least one day".into());
        if let Some(day) = self.stranded_check_in_day() {
            let message = format!(
                "a stay starting on {} cannot end on any of {:?} within maxNights ({})",
                day_name(day),
                self.check_out_days.names(),
                self.max_nights
            );
            check(false, "checkInDays", message);
        }
        let hours = self.advance_notice_hours <= MAX_NOTICE_HOURS;
        check(hours, "advanceNoticeHours", format!("must be 0 to {MAX_NOTICE_HOURS}"));
        let window = self.booking_window_days.is_none_or(|d| (1..=MAX_WINDOW_DAYS).contains(&d));
        check(window, "bookingWindowDays", format!("must be 1 to {MAX_WINDOW_DAYS}"));
        let prep = self.preparation_nights <= MAX_PREPARATION_NIGHTS;
        check(prep, "preparationNights", format!("must be 0 to {MAX_PREPARATION_NIGHTS}"));
    }

    /// A check-in day from which no allowed check-out day can be reached
    /// within `max_nights`: a contradiction no stay could satisfy.
    fn stranded_check_in_day(&self) -> Option<Weekday> {
        if self.check_out_days.is_empty() {
            return None; // reported on its own
        }
        let reach = self.max_nights.min(7);
        let all = [Weekday::Mon, Weekday::Tue, Weekday::Wed, Weekday::Thu, Weekday::Fri, Weekday::Sat, Weekday::Sun];
        all.into_iter()
            .filter(|d| self.check_in_days.contains(*d))
            .find(|d| !(1..=reach).any(|n| self.check_out_days.contains(later(*d, n))))
    }
}

fn day_name(day: Weekday) -> &'static str {
    Weekdays::name(day)
}

/// The weekday `n` days after `day`.
fn later(day: Weekday, n: u32) -> Weekday {
    (0..n % 7).fold(day, |d, _| d.succ())
}

fn at(hour: u32) -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(names: &[&str]) -> Weekdays {
        names.iter().filter_map(|n| Weekdays::day(n)).collect()
    }

    fn fields(rules: StayRules) -> Vec<String> {
        let mut errors = Vec::new();
        rules.faults(&mut errors);
        errors.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn check_in_days_that_no_check_out_day_can_follow_are_refused() {
        let cases: [(&[&str], &[&str], u32, bool); 7] = [
            (&["sat"], &["sat"], 7, true),         // a week, Saturday to Saturday
            (&["sat"], &["sat"], 6, false),        // six nights never reach the next Saturday
            (&["fri"], &["sun"], 2, true),         // a weekend
            (&["fri"], &["sun"], 1, false),        // one night from Friday ends on Saturday
            (&["mon", "fri"], &["sun"], 2, false), // Monday is stranded
            (&["mon", "fri"], &["sun"], 6, true),
            (&["mon"], &[], 7, false), // no check-out day at all
        ];
        for (ins, outs, max, ok) in cases {
            let rules = StayRules::default().nights(1, max).days(days(ins), days(outs));
            assert_eq!(fields(rules).is_empty(), ok, "{ins:?} -> {outs:?} within {max}: {:?}", fields(rules));
        }
    }

    #[test]
    fn notice_window_and_preparation_are_bounded_on_both_sides() {
        let cases = [
            (StayRules::default().notice(MAX_NOTICE_HOURS, None), None),
            (StayRules::default().notice(MAX_NOTICE_HOURS + 1, None), Some("advanceNoticeHours")),
            (StayRules::default().notice(0, Some(1)), None),
            (StayRules::default().notice(0, Some(0)), Some("bookingWindowDays")),
            (StayRules::default().notice(0, Some(MAX_WINDOW_DAYS)), None),
            (StayRules::default().notice(0, Some(MAX_WINDOW_DAYS + 1)), Some("bookingWindowDays")),
            (StayRules::default().preparation(MAX_PREPARATION_NIGHTS), None),
            (StayRules::default().preparation(MAX_PREPARATION_NIGHTS + 1), Some("preparationNights")),
        ];
        for (rules, fault) in cases {
            assert_eq!(fields(rules), fault.into_iter().collect::<Vec<_>>(), "{rules:?}");
        }
    }
}
