//! A property's stay rules: how many nights a stay may last and the local
//! times guests arrive and leave.

use chrono::NaiveTime;

use crate::basics::clock_time::ClockTime;
use crate::basics::stay::MAX_NIGHTS;
use crate::error::FieldError;

/// How long a stay may be and when it starts and ends, in the property's
/// zone. The default is what a JSON import gives: 1 to 366 nights, check-in
/// at 15:00, check-out at 11:00.
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
}

impl Default for StayRules {
    fn default() -> Self {
        StayRules { min_nights: 1, max_nights: MAX_NIGHTS, check_in_time: at(15), check_out_time: at(11) }
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

    /// The faults of these rules, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        if !(1..=MAX_NIGHTS).contains(&self.min_nights) {
            errors.push(FieldError::new("minNights", "invalid", "must be 1 to 366"));
        }
        if !(self.min_nights..=MAX_NIGHTS).contains(&self.max_nights) {
            errors.push(FieldError::new("maxNights", "invalid", "must be minNights to 366"));
        }
    }
}

fn at(hour: u32) -> ClockTime {
    ClockTime(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or_default())
}
