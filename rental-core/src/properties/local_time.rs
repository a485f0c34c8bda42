//! Local wall-clock times of a property as UTC instants: a check-in time on
//! an arrival day, the midnight that starts a day, across DST gaps and folds.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;

use crate::basics::clock_time::ClockTime;
use crate::property::Property;

impl Property {
    /// The property's own date at `now`: what "today" means for its
    /// arrivals, its summary and its booking page.
    ///
    /// ```
    /// use rental_core::{Property, Tz};
    ///
    /// let house = Property::new("kyma".parse()?, "Kyma", Tz::Pacific__Auckland, 20_000);
    /// let now = "2026-12-31T12:00:00Z".parse().unwrap();
    /// assert_eq!(house.today(now).to_string(), "2027-01-01");
    /// # Ok::<(), rental_core::Error>(())
    /// ```
    pub fn today(&self, now: DateTime<Utc>) -> NaiveDate {
        now.with_timezone(&self.timezone).date_naive()
    }
}

/// The instant `time` on `date` in `tz`. A time that a DST fold repeats is
/// its first occurrence; one that a DST gap skips is the first instant after
/// the gap (02:30 on a spring-forward night is 03:00 local): 15:00 on
/// 2026-07-01 in Lisbon is 14:00 UTC.
pub fn instant(tz: Tz, date: NaiveDate, time: ClockTime) -> DateTime<Utc> {
    at_local(tz, date, time.0)
}

/// The instant the local day `date` starts in `tz`.
pub fn start_of_day(tz: Tz, date: NaiveDate) -> DateTime<Utc> {
    at_local(tz, date, NaiveTime::MIN)
}

fn at_local(tz: Tz, date: NaiveDate, time: NaiveTime) -> DateTime<Utc> {
    local_instant(tz, date.and_time(time))
}

/// The instant of the local wall-clock time `local` in `tz`, with the rules of
/// [`instant`]: a folded time is its first occurrence, a skipped one the end of the gap.
pub fn local_instant(tz: Tz, local: NaiveDateTime) -> DateTime<Utc> {
    let mut local = local;
    // No zone skips more than a day; a minute at a time finds the gap's end.
    for _ in 0..=24 * 60 {
        if let Some(t) = tz.from_local_datetime(&local).earliest() {
            return t.to_utc();
        }
        local += TimeDelta::minutes(1);
    }
    local.and_utc()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn t(s: &str) -> ClockTime {
        ClockTime::parse(s).unwrap()
    }

    #[test]
    fn local_times_become_utc_instants_across_dst() {
        let cases = [
            (chrono_tz::Europe::Lisbon, "2026-12-20", "15:00", "2026-12-20T15:00:00Z"),
            (chrono_tz::Europe::Lisbon, "2026-07-01", "15:00", "2026-07-01T14:00:00Z"),
            (chrono_tz::Pacific::Auckland, "2026-11-23", "11:00", "2026-11-22T22:00:00Z"),
            (chrono_tz::America::Los_Angeles, "2026-03-08", "02:30", "2026-03-08T10:00:00Z"), // gap: 03:00 PDT
            (chrono_tz::America::Los_Angeles, "2026-11-01", "01:30", "2026-11-01T08:30:00Z"), // fold: first, PDT
        ];
        for (tz, date, time, want) in cases {
            assert_eq!(instant(tz, d(date), t(time)), want.parse::<DateTime<Utc>>().unwrap(), "{tz} {date} {time}");
        }
    }

    #[test]
    fn a_day_starts_at_local_midnight() {
        let start = start_of_day(chrono_tz::Asia::Tokyo, d("2026-11-23"));
        assert_eq!(start, "2026-11-22T15:00:00Z".parse::<DateTime<Utc>>().unwrap());
    }
}
