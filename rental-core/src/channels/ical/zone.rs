//! Time zones of DATE-TIME values: `Z`, `TZID` (IANA, Windows name, or a VTIMEZONE of the file),
//! or floating (`X-WR-TIMEZONE`, else the property's zone); and the night a value falls on.

use std::collections::HashMap;
use std::rc::Rc;

use chrono::{Duration, NaiveDate, NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;

use super::recur::{self, Rule};
use super::value::Stamp;
use super::windows_zones::windows_zone;

/// A `VTIMEZONE` of the file whose `TZID` is no zone we know by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct CustomZone {
    /// The IANA zone its `X-LIC-LOCATION` names, trusted over the parts below.
    pub location: Option<Tz>,
    /// The `STANDARD` and `DAYLIGHT` parts.
    pub observances: Vec<Observance>,
}

/// One `STANDARD` or `DAYLIGHT` part of a `VTIMEZONE`.
#[derive(Debug, Clone)]
pub(crate) struct Observance {
    /// `DTSTART`: the first onset, where an `RRULE` starts from.
    pub dtstart: NaiveDateTime,
    /// `DTSTART` and the `RDATE`s: local times when this offset begins, sorted.
    pub onsets: Vec<NaiveDateTime>,
    /// The `RRULE` repeating the onset, with its `UNTIL` read.
    pub rule: Option<(Rule, Option<NaiveDateTime>)>,
    /// `TZOFFSETFROM`, seconds east of UTC.
    pub offset_from: i32,
    /// `TZOFFSETTO`, seconds east of UTC.
    pub offset_to: i32,
}

/// A zone a DATE-TIME can be in.
#[derive(Debug, Clone, Copy)]
enum Zone<'a> {
    Named(Tz),
    Custom(&'a CustomZone),
}

/// Reads DATE-TIME values of one feed into nights of the property.
#[derive(Debug)]
pub(crate) struct Zones {
    property: Tz,
    floating: Tz,
    custom: Rc<HashMap<String, CustomZone>>,
}

/// An IANA name in a `TZID`, also when wrapped in quotes or prefixed by a
/// vendor path (`/mozilla.org/20070129_1/Europe/Paris`), or a Windows name.
pub(crate) fn named_zone(tzid: &str) -> Option<Tz> {
    let tzid = tzid.trim().trim_matches('"').trim();
    if let Ok(tz) = tzid.parse::<Tz>() {
        return Some(tz);
    }
    if let Some(tz) = windows_zone(tzid) {
        return Some(tz);
    }
    tzid.match_indices('/').find_map(|(at, _)| tzid[at + 1..].parse::<Tz>().ok())
}

impl Zones {
    /// Zones for a feed read for a property in `property`; `floating` from `X-WR-TIMEZONE`.
    pub fn new(property: Tz, floating: Option<&str>, custom: Rc<HashMap<String, CustomZone>>) -> Zones {
        let floating = floating.and_then(named_zone).unwrap_or(property);
        Zones { property, floating, custom }
    }

    /// The property's night `stamp` falls on. `None` is a `TZID` nobody knows,
    /// read as the property's own zone: the caller warns.
    pub fn night(&self, stamp: Stamp, tzid: Option<&str>) -> (NaiveDate, bool) {
        match stamp {
            Stamp::Date(date) => (date, true),
            Stamp::DateTime { at, utc: true } => (self.property.from_utc_datetime(&at).date_naive(), true),
            Stamp::DateTime { at, utc: false } => {
                let (zone, known) = match tzid {
                    None => (Zone::Named(self.floating), true),
                    Some(tzid) => match self.zone(tzid) {
                        Some(zone) => (zone, true),
                        None => (Zone::Named(self.property), false),
                    },
                };
                (self.property.from_utc_datetime(&to_utc(&zone, at)).date_naive(), known)
            }
        }
    }

    /// The UTC instant of a DATE-TIME `stamp` (wall-clock in `tzid`, or UTC).
    pub fn instant(&self, stamp: Stamp, tzid: Option<&str>) -> NaiveDateTime {
        match stamp {
            Stamp::Date(date) => to_utc(&Zone::Named(self.property), date.and_time(chrono::NaiveTime::MIN)),
            Stamp::DateTime { at, utc: true } => at,
            Stamp::DateTime { at, utc: false } => {
                let zone = match tzid {
                    None => Zone::Named(self.floating),
                    Some(tzid) => self.zone(tzid).unwrap_or(Zone::Named(self.property)),
                };
                to_utc(&zone, at)
            }
        }
    }

    /// The wall-clock time in `tzid` (or floating) of the UTC instant `at`.
    pub fn wall_in(&self, at: NaiveDateTime, tzid: Option<&str>) -> NaiveDateTime {
        let zone = match tzid {
            None => Zone::Named(self.floating),
            Some(tzid) => self.zone(tzid).unwrap_or(Zone::Named(self.property)),
        };
        match zone {
            Zone::Named(tz) => tz.from_utc_datetime(&at).naive_local(),
            Zone::Custom(custom) => at + Duration::seconds(i64::from(custom.offset_at(at))),
        }
    }

    /// An IANA or Windows name is trusted over the file's VTIMEZONE (which
    /// real feeds get wrong); the VTIMEZONE serves names no database knows.
    fn zone(&self, tzid: &str) -> Option<Zone<'_>> {
        if let Some(tz) = named_zone(tzid) {
            return Some(Zone::Named(tz));
        }
        let custom = self.custom.get(tzid.trim().trim_matches('"').trim())?;
        Some(match custom.location {
            Some(tz) => Zone::Named(tz),
            None => Zone::Custom(custom),
        })
    }
}

/// The UTC instant of wall-clock `at` in `zone`. A time in a DST gap is read
/// with the offset in force before the gap (RFC 5545 §3.3.5), so it lands as
/// far past the gap as it was into it; an ambiguous time takes its first reading.
fn to_utc(zone: &Zone<'_>, at: NaiveDateTime) -> NaiveDateTime {
    match zone {
        Zone::Named(tz) => {
            if let Some(local) = tz.from_local_datetime(&at).earliest() {
                return local.naive_utc();
            }
            for hours in 1..=3 {
                if let Some(before) = tz.from_local_datetime(&(at - Duration::hours(hours))).earliest() {
                    return at - Duration::seconds(i64::from(before.offset().fix().local_minus_utc()));
                }
            }
            at
        }
        Zone::Custom(custom) => at - Duration::seconds(i64::from(custom.offset_at(at))),
    }
}

impl CustomZone {
    /// The UTC offset in force at wall-clock `at`: that of the observance with
    /// the latest onset not after `at`.
    fn offset_at(&self, at: NaiveDateTime) -> i32 {
        let latest = self
            .observances
            .iter()
            .filter_map(|observance| observance.latest_onset(at).map(|onset| (onset, observance.offset_to)))
            .max_by_key(|&(onset, _)| onset);
        match latest {
            Some((_, offset)) => offset,
            None => self.observances.iter().min_by_key(|o| o.onsets.first().copied()).map_or(0, |o| o.offset_from),
        }
    }
}

impl Observance {
    fn latest_onset(&self, at: NaiveDateTime) -> Option<NaiveDateTime> {
        // `onsets` is sorted (see `Observance::onsets`), so this is a binary search.
        let listed = self.onsets.partition_point(|&onset| onset <= at).checked_sub(1).map(|i| self.onsets[i]);
        let ruled = self.rule.as_ref().and_then(|(rule, until)| recur::latest_before(rule, self.dtstart, *until, at));
        listed.max(ruled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channels::ical::value::parse_stamp;

    fn night(zones: &Zones, raw: &str, tzid: Option<&str>) -> String {
        let stamp = parse_stamp(raw, false).expect("a stamp");
        zones.night(stamp, tzid).0.to_string()
    }

    fn zones(property: Tz) -> Zones {
        Zones::new(property, None, Rc::default())
    }

    #[test]
    fn utc_values_land_on_the_property_date() {
        // 23:30 UTC is already the next day in Paris, still the same day in Los Angeles.
        assert_eq!(night(&zones(Tz::Europe__Paris), "20261210T233000Z", None), "2026-12-11");
        assert_eq!(night(&zones(Tz::America__Los_Angeles), "20261210T233000Z", None), "2026-12-10");
    }

    #[test]
    fn tzid_values_are_read_in_their_zone() {
        let auckland = zones(Tz::Pacific__Auckland);
        assert_eq!(night(&auckland, "20261210T160000", Some("Europe/Paris")), "2026-12-11");
        assert_eq!(night(&auckland, "20261210T160000", Some("\"Europe/Paris\"")), "2026-12-11");
        assert_eq!(night(&auckland, "20261210T160000", Some("/mozilla.org/20070129_1/Europe/Paris")), "2026-12-11");
    }

    #[test]
    fn windows_zone_names_are_understood() {
        let auckland = zones(Tz::Pacific__Auckland);
        assert_eq!(night(&auckland, "20261210T160000", Some("W. Europe Standard Time")), "2026-12-11");
    }

    #[test]
    fn unknown_tzids_are_read_in_the_property_zone_and_flagged() {
        let paris = zones(Tz::Europe__Paris);
        let stamp = parse_stamp("20261210T233000", false).expect("a stamp");
        assert_eq!(
            paris.night(stamp, Some("Mars/Olympus")),
            (NaiveDate::from_ymd_opt(2026, 12, 10).expect("d"), false)
        );
    }

    #[test]
    fn floating_values_use_x_wr_timezone_else_the_property_zone() {
        let with = Zones::new(Tz::Europe__Paris, Some("America/New_York"), Rc::default());
        assert_eq!(night(&with, "20261210T200000", None), "2026-12-11");
        assert_eq!(night(&zones(Tz::Europe__Paris), "20261210T200000", None), "2026-12-10");
    }

    #[test]
    fn a_time_in_the_dst_gap_moves_past_the_gap() {
        // 02:30 on 2026-03-29 does not exist in Paris; it is read as 03:30 CEST = 01:30 UTC.
        let gap = NaiveDate::from_ymd_opt(2026, 3, 29).and_then(|d| d.and_hms_opt(2, 30, 0)).expect("t");
        let utc = to_utc(&Zone::Named(Tz::Europe__Paris), gap);
        assert_eq!(utc.to_string(), "2026-03-29 01:30:00");
        assert_eq!(night(&zones(Tz::Europe__Paris), "20260329T023000", Some("Europe/Paris")), "2026-03-29");
    }

    #[test]
    fn an_ambiguous_time_takes_its_first_reading() {
        let twice = NaiveDate::from_ymd_opt(2026, 10, 25).and_then(|d| d.and_hms_opt(2, 30, 0)).expect("t");
        assert_eq!(to_utc(&Zone::Named(Tz::Europe__Paris), twice).to_string(), "2026-10-25 00:30:00");
    }

    #[test]
    fn a_custom_vtimezone_applies_its_rules() {
        let rule = |raw| Some((recur::parse_rule(raw).expect("a rule"), None));
        let wall = |raw| parse_stamp(raw, false).expect("a stamp").wall();
        let custom = CustomZone {
            location: None,
            observances: vec![
                Observance {
                    dtstart: wall("19700329T020000"),
                    onsets: vec![wall("19700329T020000")],
                    rule: rule("FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"),
                    offset_from: 3600,
                    offset_to: 7200,
                },
                Observance {
                    dtstart: wall("19701025T030000"),
                    onsets: vec![wall("19701025T030000")],
                    rule: rule("FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"),
                    offset_from: 7200,
                    offset_to: 3600,
                },
            ],
        };
        let zones = Zones::new(Tz::UTC, None, Rc::new(HashMap::from([("My Zone".to_owned(), custom)])));
        // Summer: +02:00, so 01:00 local is the previous day 23:00 UTC.
        assert_eq!(night(&zones, "20260710T010000", Some("My Zone")), "2026-07-09");
        // Winter: +01:00, so 00:30 local is 23:30 UTC the day before.
        assert_eq!(night(&zones, "20261210T003000", Some("My Zone")), "2026-12-09");
        assert_eq!(night(&zones, "20261210T013000", Some("My Zone")), "2026-12-10");
    }
}
