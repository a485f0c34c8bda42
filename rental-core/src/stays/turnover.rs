//! The turnover between a stay that leaves and the next one that arrives
//! (docs/API.md section 15): the cleaning window and the gap between them.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::properties::property::Property;
use crate::stays::stay_state::{StayTimes, scheduled_check_in};

/// The cleaner's window after a departure.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Turnover {
    /// The next arrival is on the departure day.
    pub same_day: bool,
    /// The departure: `checkOutTime` on the departure day, or the early check-out.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub cleaning_from: DateTime<Utc>,
    /// The next arrival's `checkInTime`; null without a next arrival.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub cleaning_until: Option<DateTime<Utc>>,
    /// Nights between the departure and the next arrival; null without a next arrival.
    pub gap_nights: Option<u32>,
    /// The gap is more than 0 nights and shorter than the minimum stay of its first night.
    pub unbookable_gap: bool,
}

/// The turnover after `leaving` (the stay that departs today or is in
/// progress), before `next_arrival` (the next pending or confirmed arrival
/// on or after its departure day).
pub fn turnover(property: &Property, leaving: &StayTimes, next_arrival: Option<NaiveDate>) -> Turnover {
    let departure = leaving.departure;
    let gap = next_arrival.map(|a| u32::try_from((a - departure).num_days().max(0)).unwrap_or(u32::MAX));
    Turnover {
        same_day: next_arrival == Some(departure),
        cleaning_from: leaving.check_out_at,
        cleaning_until: next_arrival.map(|a| scheduled_check_in(property, a)),
        gap_nights: gap,
        unbookable_gap: gap.is_some_and(|g| g > 0 && g < property.rate_on(departure).min_nights),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::visit::Visit;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_same_day_turnover_cleans_from_check_out_to_check_in() {
        let p = demo::sea_view(); // Lisbon, UTC+0 in December, minNights 2
        let leaving = StayTimes::of(&p, d("2026-12-18"), d("2026-12-20"), &Visit::default());
        let t = turnover(&p, &leaving, Some(d("2026-12-20")));
        assert_eq!(
            t,
            Turnover {
                same_day: true,
                cleaning_from: at("2026-12-20T11:00:00Z"),
                cleaning_until: Some(at("2026-12-20T15:00:00Z")),
                gap_nights: Some(0),
                unbookable_gap: false,
            }
        );
    }

    #[test]
    fn a_one_night_gap_under_the_minimum_stay_is_unbookable() {
        let p = demo::sea_view(); // minNights 2 in December
        let leaving = StayTimes::of(&p, d("2026-12-18"), d("2026-12-20"), &Visit::default());
        let one = turnover(&p, &leaving, Some(d("2026-12-21")));
        assert_eq!((one.same_day, one.gap_nights, one.unbookable_gap), (false, Some(1), true));
        let two = turnover(&p, &leaving, Some(d("2026-12-22")));
        assert_eq!((two.gap_nights, two.unbookable_gap), (Some(2), false));
    }

    #[test]
    fn an_early_check_out_opens_the_window_and_no_next_arrival_leaves_it_open() {
        let p = demo::sea_view();
        let visit = Visit { checked_out_at: Some(at("2026-12-19T08:30:00Z")), ..Visit::default() };
        let leaving = StayTimes::of(&p, d("2026-12-18"), d("2026-12-20"), &visit);
        let t = turnover(&p, &leaving, None);
        assert_eq!(
            (t.cleaning_from, t.cleaning_until, t.gap_nights, t.unbookable_gap),
            (at("2026-12-19T08:30:00Z"), None, None, false)
        );
    }
}
