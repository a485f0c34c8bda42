//! A stay: the half-open range of nights `check_in..check_out`, checked on
//! construction, so that code past the edge never sees an empty or huge stay.

use chrono::{Days, Months, NaiveDate};
use serde::{Deserialize, Serialize};

/// The longest stay (and the longest date range) the library accepts, in nights.
pub const MAX_NIGHTS: u32 = 366;

/// How far ahead a stay may start: up to this many months after the property's local today.
///
/// Bookings and quotes past it are refused (`beyond_horizon`), and so is availability
/// asked for from a night past it. Channels open their calendars about as far.
pub const HORIZON_MONTHS: u32 = 36;

/// The last night a stay may start on, for a property whose local today is `today`.
///
/// ```
/// let today = "2026-11-23".parse().unwrap();
/// assert_eq!(rental_core::stay::last_check_in(today), "2029-11-23".parse().unwrap());
/// ```
pub fn last_check_in(today: NaiveDate) -> NaiveDate {
    today.checked_add_months(Months::new(HORIZON_MONTHS)).unwrap_or(NaiveDate::MAX)
}

/// Nights `check_in` up to, not including, `check_out`; 1 to [`MAX_NIGHTS`] of them.
///
/// ```
/// use chrono::NaiveDate;
/// use rental_core::Stay;
///
/// let d = |s: &str| s.parse::<NaiveDate>().unwrap();
/// let stay = Stay::new(d("2026-12-20"), d("2026-12-27"))?;
/// assert_eq!(stay.nights(), 7);
/// assert!(Stay::new(d("2026-12-27"), d("2026-12-20")).is_err());
/// # Ok::<(), rental_core::StayError>(())
/// ```
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawStay", into = "RawStay")]
pub struct Stay {
    check_in: NaiveDate,
    check_out: NaiveDate,
}

/// Why two dates do not make a [`Stay`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StayError {
    /// `check_out` is on or before `check_in`.
    #[error("checkOut must be after checkIn")]
    NotAfter,
    /// More nights than [`MAX_NIGHTS`].
    #[error("a stay is at most {MAX_NIGHTS} nights")]
    TooLong,
}

impl Stay {
    /// The stay from `check_in` to `check_out`, if it is 1 to [`MAX_NIGHTS`] nights long.
    pub fn new(check_in: NaiveDate, check_out: NaiveDate) -> Result<Self, StayError> {
        if check_out <= check_in {
            return Err(StayError::NotAfter);
        }
        if (check_out - check_in).num_days() > i64::from(MAX_NIGHTS) {
            return Err(StayError::TooLong);
        }
        Ok(Stay { check_in, check_out })
    }

    /// The first night.
    pub fn check_in(&self) -> NaiveDate {
        self.check_in
    }

    /// The departure day (not a night of the stay).
    pub fn check_out(&self) -> NaiveDate {
        self.check_out
    }

    /// The number of nights, at least 1.
    pub fn nights(&self) -> u32 {
        (self.check_out - self.check_in).num_days() as u32
    }

    /// Each night of the stay, in order.
    pub fn dates(&self) -> impl Iterator<Item = NaiveDate> + use<> {
        let start = self.check_in;
        (0..u64::from(self.nights())).map(move |i| start + Days::new(i))
    }

    /// True when the two stays share at least one night.
    pub fn overlaps(&self, check_in: NaiveDate, check_out: NaiveDate) -> bool {
        self.check_in < check_out && check_in < self.check_out
    }

    /// True when `night` is one of the stay's nights.
    pub fn contains(&self, night: NaiveDate) -> bool {
        self.check_in <= night && night < self.check_out
    }
}

#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawStay {
    /// Arrival: the first night.
    check_in: NaiveDate,
    /// Departure: the day after the last night.
    check_out: NaiveDate,
}

impl TryFrom<RawStay> for Stay {
    type Error = StayError;
    fn try_from(raw: RawStay) -> Result<Self, StayError> {
        Stay::new(raw.check_in, raw.check_out)
    }
}

impl From<Stay> for RawStay {
    fn from(stay: Stay) -> Self {
        RawStay { check_in: stay.check_in, check_out: stay.check_out }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn stays_are_checked_on_construction() {
        let cases = [
            ("2026-12-20", "2026-12-21", Ok(1)),
            ("2026-12-20", "2026-12-20", Err(StayError::NotAfter)),
            ("2026-12-21", "2026-12-20", Err(StayError::NotAfter)),
            ("2026-01-01", "2027-01-02", Ok(366)),
            ("2026-01-01", "2027-01-03", Err(StayError::TooLong)),
            ("2026-01-01", "2036-01-01", Err(StayError::TooLong)),
        ];
        for (a, b, want) in cases {
            assert_eq!(Stay::new(d(a), d(b)).map(|s| s.nights()), want, "{a}..{b}");
        }
    }

    #[test]
    fn a_stay_holds_its_nights_but_not_its_departure_day() {
        let stay = Stay::new(d("2026-12-30"), d("2027-01-02")).unwrap();
        let nights: Vec<_> = stay.dates().collect();
        assert_eq!(nights, [d("2026-12-30"), d("2026-12-31"), d("2027-01-01")]);
        assert!(!stay.contains(d("2027-01-02")));
        assert!(stay.overlaps(d("2027-01-01"), d("2027-01-05")));
        assert!(!stay.overlaps(d("2027-01-02"), d("2027-01-05")), "same-day turnover is no overlap");
    }
}
