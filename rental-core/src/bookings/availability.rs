//! Pure per-night availability: a property, a range of nights, its local
//! today and its calendar give one record per night (docs/API.md section 4).

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::basics::date_json::ymd;
use crate::basics::ids::Slug;
use crate::basics::json_out::{push_int, push_json_str};
use crate::basics::stay::Stay;
use crate::bookings::calendar::{CalendarEntry, EntryKind};
use crate::bookings::quote_rules as rules;
use crate::properties::property::{Cents, Property};

/// Availability of a property over a range of nights.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Availability {
    /// The property's slug.
    pub property: Slug,
    /// First night.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub from: NaiveDate,
    /// Day after the last night.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub to: NaiveDate,
    /// `USD`.
    pub currency: String,
    /// One record per night, in order.
    pub nights: Vec<Night>,
}

/// One night's record.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Night {
    /// The night.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub date: NaiveDate,
    /// True iff `status` is `available`.
    pub available: bool,
    /// The night's rate before discounts, fees and taxes.
    pub price: Cents,
    /// Shortest stay starting on this night, after gap relief (docs/API.md section 25).
    pub min_nights: u32,
    /// Why the night is or is not free.
    pub status: NightStatus,
    /// Whether a stay may start this day under the weekday, notice and window rules.
    pub check_in: bool,
    /// Whether a stay may end this day under the weekday rule.
    pub check_out: bool,
}

/// The state of one night. Where several apply, the first listed wins.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NightStatus {
    /// Before the property's local today.
    Past,
    /// A confirmed stay.
    Booked,
    /// A pending request.
    Held,
    /// An imported or manual block.
    Blocked,
    /// Free, but kept free to prepare for a neighbouring stay or block (`preparationNights`).
    Preparation,
    /// Free.
    Available,
}

impl From<EntryKind> for NightStatus {
    fn from(kind: EntryKind) -> Self {
        match kind {
            EntryKind::Held => NightStatus::Held,
            EntryKind::Booked => NightStatus::Booked,
            EntryKind::Blocked => NightStatus::Blocked,
        }
    }
}

/// The dates from which availability over `range` must read the calendar:
/// the preparation nights around it and the gaps that may start in it.
pub fn calendar_span(property: &Property, range: Stay) -> (NaiveDate, NaiveDate) {
    let before = u64::from(property.stay_rules.preparation_nights) + 1;
    let gap = property.pricing.rules.gap_fill.map_or(0, |g| g.max_gap_nights);
    let after = before + u64::from(gap);
    let from = range.check_in().checked_sub_days(chrono::Days::new(before)).unwrap_or(NaiveDate::MIN);
    (from, range.check_out().checked_add_days(chrono::Days::new(after)).unwrap_or(NaiveDate::MAX))
}

impl Availability {
    /// The JSON body, byte for byte what `serde_json::to_vec` writes (a test
    /// checks it), written directly: an answer carries up to 366 nights.
    pub fn to_json(&self) -> Vec<u8> {
        let (Some(from), Some(to)) = (ymd(self.from), ymd(self.to)) else {
            return serde_json::to_vec(self).unwrap_or_default();
        };
        let mut out = Vec::with_capacity(96 + 90 * self.nights.len());
        out.extend_from_slice(b"{\"property\":");
        push_json_str(&mut out, self.property.as_str());
        out.extend_from_slice(b",\"from\":\"");
        out.extend_from_slice(&from);
        out.extend_from_slice(b"\",\"to\":\"");
        out.extend_from_slice(&to);
        out.extend_from_slice(b"\",\"currency\":");
        push_json_str(&mut out, &self.currency);
        out.extend_from_slice(b",\"nights\":[");
        for (i, night) in self.nights.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let Some(date) = ymd(night.date) else { return serde_json::to_vec(self).unwrap_or_default() };
            out.extend_from_slice(b"{\"date\":\"");
            out.extend_from_slice(&date);
            out.extend_from_slice(if night.available { b"\",\"available\":true" } else { b"\",\"available\":false" });
            out.extend_from_slice(b",\"price\":");
            push_int(&mut out, night.price);
            out.extend_from_slice(b",\"minNights\":");
            push_int(&mut out, i64::from(night.min_nights));
            out.extend_from_slice(b",\"status\":\"");
            out.extend_from_slice(night.status.as_str().as_bytes());
            out.extend_from_slice(if night.check_in { b"\",\"checkIn\":true" } else { b"\",\"checkIn\":false" });
            out.extend_from_slice(if night.check_out { b",\"checkOut\":true}" } else { b",\"checkOut\":false}" });
        }
        out.extend_from_slice(b"]}");
        out
    }
}

/// The status as JSON names it (`booked`, ...).
impl std::fmt::Display for NightStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl NightStatus {
    /// The status as JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            NightStatus::Past => "past",
            NightStatus::Booked => "booked",
            NightStatus::Held => "held",
            NightStatus::Blocked => "blocked",
            NightStatus::Preparation => "preparation",
            NightStatus::Available => "available",
        }
    }
}

/// The per-night records of `range` at `property` at `now`, given its
/// calendar over at least [`calendar_span`] of the range.
///
/// ```
/// use rental_core::{availability, demo, Stay};
///
/// let d = |s: &str| s.parse().unwrap();
/// let range = Stay::new(d("2026-12-01"), d("2026-12-31"))?;
/// let now = "2026-11-22T08:00:00Z".parse().unwrap();
/// let a = availability::nights(&demo::sea_view(), range, now, &[]);
/// assert_eq!(a.nights.len(), 30);
/// assert!(a.nights.iter().all(|n| n.available));
/// # Ok::<(), rental_core::StayError>(())
/// ```
pub fn nights(property: &Property, range: Stay, now: DateTime<Utc>, calendar: &[CalendarEntry]) -> Availability {
    let today = property.today(now);
    let prep = property.stay_rules.preparation_nights;
    let days = rules::DayRules::at(property, now);
    let mut statuses = vec![NightStatus::Available; range.nights() as usize];
    for entry in calendar {
        for date in entry.stay.dates().filter(|d| range.contains(*d)) {
            let slot = &mut statuses[(date - range.check_in()).num_days() as usize];
            *slot = (*slot).min(entry.kind.into());
        }
    }
    let nights = range
        .dates()
        .zip(statuses)
        .map(|(date, status)| {
            let status = match status {
                _ if date < today => NightStatus::Past,
                NightStatus::Available if prep > 0 && rules::closed(calendar, prep, date) => NightStatus::Preparation,
                status => status,
            };
            Night {
                date,
                available: status == NightStatus::Available,
                price: property.rate_on(date).price,
                min_nights: rules::min_nights_from(property, date, calendar),
                status,
                check_in: days.may_start(date),
                check_out: days.may_end(date),
            }
        })
        .collect();
    Availability {
        property: property.slug.clone(),
        from: range.check_in(),
        to: range.check_out(),
        currency: property.currency.clone(),
        nights,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::short_text::ShortText;
    use crate::demo;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn noon(day: &str) -> DateTime<Utc> {
        format!("{day}T12:00:00Z").parse().unwrap()
    }

    fn entry(a: &str, b: &str, kind: EntryKind) -> CalendarEntry {
        let stay = Stay::new(d(a), d(b)).unwrap();
        CalendarEntry { holder: format!("{a}{kind:?}").into(), stay, kind, guest_name: ShortText::default(), guests: 0 }
    }

    #[test]
    fn each_night_says_why_it_is_or_is_not_free() {
        use NightStatus::*;
        let calendar = [
            entry("2026-11-20", "2026-11-23", EntryKind::Booked),
            entry("2026-11-24", "2026-11-25", EntryKind::Held),
            entry("2026-11-25", "2026-11-26", EntryKind::Blocked),
            entry("2026-11-26", "2026-11-27", EntryKind::Blocked),
            entry("2026-11-26", "2026-11-27", EntryKind::Booked), // an imported conflict
        ];
        let range = Stay::new(d("2026-11-21"), d("2026-11-28")).unwrap();
        let a = nights(&demo::sea_view(), range, noon("2026-11-22"), &calendar);
        let got: Vec<(NightStatus, bool)> = a.nights.iter().map(|n| (n.status, n.available)).collect();
        assert_eq!(
            got,
            [
                (Past, false),
                (Booked, false),
                (Available, true),
                (Held, false),
                (Blocked, false),
                (Booked, false),
                (Available, true)
            ]
        );
    }

    #[test]
    fn the_direct_json_is_what_serde_writes() {
        let calendar =
            [entry("2026-11-24", "2026-11-25", EntryKind::Held), entry("2026-11-25", "2026-11-28", EntryKind::Booked)];
        let range = Stay::new(d("2026-11-20"), d("2027-11-20")).unwrap();
        let a = nights(&demo::sea_view(), range, noon("2026-11-22"), &calendar);
        assert_eq!(String::from_utf8(a.to_json()).unwrap(), serde_json::to_string(&a).unwrap());
        let mut odd = a.clone();
        odd.currency = "U\"SD".into();
        odd.nights.truncate(1);
        odd.nights[0].price = -5;
        assert_eq!(String::from_utf8(odd.to_json()).unwrap(), serde_json::to_string(&odd).unwrap());
    }

    #[test]
    fn each_night_carries_its_price_and_minimum() {
        let range = Stay::new(d("2026-05-31"), d("2026-06-02")).unwrap();
        let a = nights(&demo::sea_view(), range, noon("2026-01-01"), &[]);
        assert_eq!((a.nights[0].price, a.nights[0].min_nights), (15_000, 2)); // a Sunday in May
        assert_eq!((a.nights[1].price, a.nights[1].min_nights), (22_000, 3)); // Summer begins
        assert_eq!(serde_json::to_value(a.nights[1]).unwrap()["status"], "available");
    }

    #[test]
    fn each_night_says_whether_a_stay_may_start_or_end_and_its_relieved_minimum() {
        use NightStatus::*;

        use crate::property::{GapFill, PriceRules};
        let mut p = demo::sea_view(); // minimum 2 nights outside summer
        p.stay_rules.check_in_days = serde_json::from_str(r#"["sat"]"#).unwrap();
        p.stay_rules.check_out_days = serde_json::from_str(r#"["sat", "sun"]"#).unwrap();
        p.stay_rules.preparation_nights = 1;
        p.stay_rules.min_nights = 3;
        p.pricing.rules = PriceRules::default().gap_fill(GapFill { max_gap_nights: 2, min_nights: 1, discount: 0 });
        // Booked 12-01..12-05 and 12-09..12-12; with a night of preparation on each side, 12-06 and 12-07 are a gap.
        let calendar = [
            entry("2026-12-01", "2026-12-05", EntryKind::Booked),
            entry("2026-12-09", "2026-12-12", EntryKind::Booked),
        ];
        let range = Stay::new(d("2026-12-04"), d("2026-12-14")).unwrap();
        let a = nights(&p, range, noon("2026-11-22"), &calendar);
        let got: Vec<(&str, NightStatus, u32, bool, bool)> =
            a.nights.iter().map(|n| (n.status.as_str(), n.status, n.min_nights, n.check_in, n.check_out)).collect();
        let want = [
            ("booked", Booked, 3, false, false),           // Fri 4
            ("preparation", Preparation, 3, true, true),   // Sat 5: the night after the stay
            ("available", Available, 2, false, true),      // Sun 6 opens a two-night gap
            ("available", Available, 3, false, false),     // Mon 7
            ("preparation", Preparation, 3, false, false), // Tue 8: the night before the next stay
            ("booked", Booked, 3, false, false),           // Wed 9
            ("booked", Booked, 3, false, false),
            ("booked", Booked, 3, false, false),
            ("preparation", Preparation, 3, true, true), // Sat 12
            ("available", Available, 3, false, true),    // Sun 13
        ];
        assert_eq!(got, want);
        let json = serde_json::to_value(a.nights[1]).unwrap();
        assert_eq!((json["checkIn"].as_bool(), json["status"].as_str()), (Some(true), Some("preparation")));
    }
}
