//! The occupancy summary for home automation (docs/API.md
//! section 7): who is in, who arrives and leaves today, each in its own zone.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::basics::ids::Slug;
use crate::basics::json_out::{push_date, push_int, push_json_str};
use crate::bookings::calendar::{CalendarEntry, EntryKind};
use crate::channels::feed_status::FeedFreshness;
use crate::properties::property::Property;
use crate::stays::access::Access;
use crate::stays::stay_state::StayState;
use crate::stays::turnover::Turnover;

/// The summary of every active property.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Today in the service's default time zone.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub date: NaiveDate,
    /// When the summary was made.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub generated_at: DateTime<Utc>,
    /// Counts over all properties.
    pub totals: Totals,
    /// One per active property, by slug.
    pub properties: Vec<PropertySummary>,
}

/// Counts over all properties.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Number of properties.
    pub properties: usize,
    /// Properties with a confirmed guest tonight.
    pub occupied_tonight: usize,
    /// Stays arriving today (pending or confirmed).
    pub check_ins_today: usize,
    /// Stays leaving today (pending or confirmed).
    pub check_outs_today: usize,
    /// Bookings now pending.
    pub pending_bookings: usize,
    /// Properties now `checked_in`.
    pub checked_in: usize,
    /// Channel feeds now stale, over all properties.
    pub stale_feeds: usize,
}

/// One property's day.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertySummary {
    /// The property's slug.
    pub slug: Slug,
    /// Its name.
    pub name: String,
    /// Today in the property's own time zone.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub date: NaiveDate,
    /// A confirmed stay holds tonight.
    pub occupied: bool,
    /// A pending or confirmed stay arrives today.
    pub check_in_today: bool,
    /// A pending or confirmed stay leaves today.
    pub check_out_today: bool,
    /// The confirmed stay holding tonight.
    pub current_booking: Option<CurrentBooking>,
    /// The earliest pending or confirmed stay from today on, other than the current one.
    pub next_arrival: Option<NextArrival>,
    /// `3:00 PM` style.
    pub check_in_time: String,
    /// `11:00 AM` style.
    pub check_out_time: String,
    /// The door code valid now, else the property's static code.
    pub door_code: String,
    /// The Wi-Fi network name.
    pub wifi_ssid: String,
    /// Where its confirmed stays are now (docs/API.md section 15).
    pub stay_state: StayState,
    /// When `stayState` next changes by itself.
    #[serde(with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub next_transition_at: Option<DateTime<Utc>>,
    /// The door code valid now, else the next one to become valid.
    pub access: Option<Access>,
    /// The stay whose code `access` would show, when its access gate is shut
    /// by more than time (docs/API.md section 15).
    pub access_withheld: Option<crate::stays::access_gate::Withheld>,
    /// The turnover after the stay that departs today or is in progress.
    pub turnover: Option<Turnover>,
    /// Each configured channel feed's freshness.
    pub feeds: Vec<FeedFreshness>,
    /// The booking `stay_state` is about (for the admin's buttons; not in the JSON).
    #[serde(skip)]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    pub stay_booking: Option<String>,
}

/// The stay holding tonight.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentBooking {
    /// Booking code.
    pub code: String,
    /// Guest's name.
    pub guest_name: String,
    /// Number of guests.
    pub guests: u32,
    /// Arrival.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub check_in: NaiveDate,
    /// Departure.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub check_out: NaiveDate,
}

/// The next stay to arrive.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextArrival {
    /// Booking code.
    pub code: String,
    /// Guest's name.
    pub guest_name: String,
    /// Arrival.
    #[serde(serialize_with = "crate::basics::date_json::serialize")]
    pub check_in: NaiveDate,
    /// `pending` or `confirmed`.
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["pending", "confirmed"])))]
    pub status: &'static str,
}

impl Summary {
    /// The JSON body, byte for byte what `serde_json::to_vec` writes (a test
    /// checks it), written directly: Home Assistant polls it.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 + 512 * self.properties.len());
        if self.write_json(&mut out).is_none() {
            return serde_json::to_vec(self).unwrap_or_default();
        }
        out
    }

    fn write_json(&self, out: &mut Vec<u8>) -> Option<()> {
        out.extend_from_slice(b"{\"date\":");
        push_date(out, self.date).then_some(())?;
        out.extend_from_slice(b",\"generatedAt\":");
        push_json_str(out, &crate::basics::timestamp::format(&self.generated_at));
        let t = &self.totals;
        let totals = [
            (",\"totals\":{\"properties\":", t.properties),
            (",\"occupiedTonight\":", t.occupied_tonight),
            (",\"checkInsToday\":", t.check_ins_today),
            (",\"checkOutsToday\":", t.check_outs_today),
            (",\"pendingBookings\":", t.pending_bookings),
            (",\"checkedIn\":", t.checked_in),
            (",\"staleFeeds\":", t.stale_feeds),
        ];
        for (key, n) in totals {
            out.extend_from_slice(key.as_bytes());
            push_int(out, i64::try_from(n).ok()?);
        }
        out.extend_from_slice(b"},\"properties\":[");
        for (i, p) in self.properties.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            p.write_json(out)?;
        }
        out.extend_from_slice(b"]}");
        Some(())
    }
}

impl PropertySummary {
    fn write_json(&self, out: &mut Vec<u8>) -> Option<()> {
        out.extend_from_slice(b"{\"slug\":");
        push_json_str(out, self.slug.as_str());
        out.extend_from_slice(b",\"name\":");
        push_json_str(out, &self.name);
        out.extend_from_slice(b",\"date\":");
        push_date(out, self.date).then_some(())?;
        push_bool(out, ",\"occupied\":", self.occupied);
        push_bool(out, ",\"checkInToday\":", self.check_in_today);
        push_bool(out, ",\"checkOutToday\":", self.check_out_today);
        out.extend_from_slice(b",\"currentBooking\":");
        match &self.current_booking {
            None => out.extend_from_slice(b"null"),
            Some(c) => {
                out.extend_from_slice(b"{\"code\":");
                push_json_str(out, &c.code);
                out.extend_from_slice(b",\"guestName\":");
                push_json_str(out, &c.guest_name);
                out.extend_from_slice(b",\"guests\":");
                push_int(out, i64::from(c.guests));
                out.extend_from_slice(b",\"checkIn\":");
                push_date(out, c.check_in).then_some(())?;
                out.extend_from_slice(b",\"checkOut\":");
                push_date(out, c.check_out).then_some(())?;
                out.push(b'}');
            }
        }
        out.extend_from_slice(b",\"nextArrival\":");
        match &self.next_arrival {
            None => out.extend_from_slice(b"null"),
            Some(n) => {
                out.extend_from_slice(b"{\"code\":");
                push_json_str(out, &n.code);
                out.extend_from_slice(b",\"guestName\":");
                push_json_str(out, &n.guest_name);
                out.extend_from_slice(b",\"checkIn\":");
                push_date(out, n.check_in).then_some(())?;
                out.extend_from_slice(b",\"status\":");
                push_json_str(out, n.status);
                out.push(b'}');
            }
        }
        let texts = [
            (",\"checkInTime\":", &self.check_in_time),
            (",\"checkOutTime\":", &self.check_out_time),
            (",\"doorCode\":", &self.door_code),
            (",\"wifiSsid\":", &self.wifi_ssid),
        ];
        for (key, text) in texts {
            out.extend_from_slice(key.as_bytes());
            push_json_str(out, text);
        }
        out.extend_from_slice(b",\"stayState\":");
        push_json_str(out, self.stay_state.as_str());
        out.extend_from_slice(b",\"nextTransitionAt\":");
        match &self.next_transition_at {
            None => out.extend_from_slice(b"null"),
            Some(t) => push_json_str(out, &crate::basics::timestamp::format(t)),
        }
        // Rarely more than a few fields: serde writes them.
        out.extend_from_slice(b",\"access\":");
        serde_json::to_writer(&mut *out, &self.access).ok()?;
        out.extend_from_slice(b",\"accessWithheld\":");
        serde_json::to_writer(&mut *out, &self.access_withheld).ok()?;
        out.extend_from_slice(b",\"turnover\":");
        serde_json::to_writer(&mut *out, &self.turnover).ok()?;
        out.extend_from_slice(b",\"feeds\":");
        serde_json::to_writer(&mut *out, &self.feeds).ok()?;
        out.push(b'}');
        Some(())
    }
}

fn push_bool(out: &mut Vec<u8>, key: &str, value: bool) {
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// What the summary needs of one property: the property, the calendar entries
/// that have not ended before its today, how many of its bookings are pending,
/// and its next confirmed arrival.
#[derive(Debug, Clone, Copy)]
pub struct PropertyDay<'a> {
    /// The property.
    pub property: &'a Property,
    /// Its calendar entries with `check_out >= today` (more do no harm), by
    /// check-in then holder: the order of the store's calendar keys and of the
    /// read cache. The summary relies on it to look only at the entries up to
    /// today and the first one after, however far ahead the calendar is booked.
    pub calendar: &'a [CalendarEntry],
    /// Its bookings now pending, whatever their dates.
    pub pending: usize,
    /// The first confirmed stay of `calendar` arriving after today, however
    /// many pending ones come before it (the read cache keeps an index of them).
    pub next_confirmed: Option<&'a CalendarEntry>,
}

/// The local date at `now` in `tz`.
pub fn today_in(tz: Tz, now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&tz).date_naive()
}

impl<'a> PropertyDay<'a> {
    /// The day of `property` at `now`, its next confirmed arrival found by a scan of `calendar`.
    pub fn new(property: &'a Property, calendar: &'a [CalendarEntry], pending: usize, now: DateTime<Utc>) -> Self {
        let next_confirmed = next_confirmed(calendar, today_in(property.timezone, now)).map(|i| &calendar[i]);
        PropertyDay { property, calendar, pending, next_confirmed }
    }

    /// The entries arriving on or before `today`: the only ones that can be in
    /// the house, arrive or leave that day.
    pub(crate) fn until(&self, today: NaiveDate) -> &'a [CalendarEntry] {
        &self.calendar[..self.arriving_before(|check_in| check_in <= today)]
    }

    /// The entries arriving on or after `today`.
    fn from(&self, today: NaiveDate) -> &'a [CalendarEntry] {
        &self.calendar[self.arriving_before(|check_in| check_in < today)..]
    }

    /// How many entries from the front arrive `before` (a test true up to some entry).
    /// A walk, not a binary search: the calendar starts with yesterday's stays, so
    /// the walk is short and stays in adjacent memory.
    fn arriving_before(&self, before: impl Fn(NaiveDate) -> bool) -> usize {
        self.calendar.iter().position(|e| !before(e.stay.check_in())).unwrap_or(self.calendar.len())
    }
}

/// Where in `calendar` (by check-in) the first confirmed stay arriving after `today` is.
pub fn next_confirmed(calendar: &[CalendarEntry], today: NaiveDate) -> Option<usize> {
    let after = calendar.partition_point(|e| e.stay.check_in() <= today);
    calendar[after..].iter().position(|e| e.kind == EntryKind::Booked).map(|i| after + i)
}

/// Summarises `days` at `now`; the top-level date is today in `default_tz`.
/// The stay and access fields of section 15 start empty (`vacant`, no code,
/// no turnover, no feeds): `stay_summary::complete` fills them in.
pub fn summarize(now: DateTime<Utc>, default_tz: Tz, days: &[PropertyDay<'_>]) -> Summary {
    let properties: Vec<PropertySummary> = days.iter().map(|day| summarize_one(now, day)).collect();
    let count = |f: fn(&PropertySummary) -> bool| properties.iter().filter(|p| f(p)).count();
    let stays = |f: fn(&CalendarEntry, NaiveDate) -> bool| -> usize {
        days.iter()
            .zip(&properties)
            .map(|(day, p)| day.until(p.date).iter().filter(|e| e.kind != EntryKind::Blocked && f(e, p.date)).count())
            .sum()
    };
    let totals = Totals {
        properties: properties.len(),
        occupied_tonight: count(|p| p.occupied),
        check_ins_today: stays(|e, today| e.stay.check_in() == today),
        check_outs_today: stays(|e, today| e.stay.check_out() == today),
        pending_bookings: days.iter().map(|d| d.pending).sum(),
        checked_in: 0,
        stale_feeds: 0,
    };
    Summary { date: today_in(default_tz, now), generated_at: now, totals, properties }
}

fn summarize_one(now: DateTime<Utc>, day: &PropertyDay<'_>) -> PropertySummary {
    let p = day.property;
    let today = today_in(p.timezone, now);
    debug_assert!(
        day.calendar.is_sorted_by_key(|e| (e.stay.check_in(), e.holder.as_str())),
        "a summary's calendar is by check-in then holder"
    );
    let until = day.until(today);
    let stays = || until.iter().filter(|e| e.kind != EntryKind::Blocked);
    let current = stays().find(|e| e.kind == EntryKind::Booked && e.stay.contains(today));
    // By check-in then holder, so the first one found is the earliest.
    let next = day
        .from(today)
        .iter()
        .find(|e| e.kind != EntryKind::Blocked && Some(e.holder.as_str()) != current.map(|c| c.holder.as_str()));
    PropertySummary {
        slug: p.slug.clone(),
        name: p.name.clone(),
        date: today,
        occupied: current.is_some(),
        check_in_today: stays().any(|e| e.stay.check_in() == today),
        check_out_today: stays().any(|e| e.stay.check_out() == today),
        current_booking: current.map(|e| CurrentBooking {
            code: e.holder.as_str().to_owned(),
            guest_name: e.guest_name.as_str().to_owned(),
            guests: e.guests,
            check_in: e.stay.check_in(),
            check_out: e.stay.check_out(),
        }),
        next_arrival: next.map(|e| NextArrival {
            code: e.holder.as_str().to_owned(),
            guest_name: e.guest_name.as_str().to_owned(),
            check_in: e.stay.check_in(),
            status: if e.kind == EntryKind::Booked { "confirmed" } else { "pending" },
        }),
        check_in_time: p.stay_rules.check_in_time.to_12h(),
        check_out_time: p.stay_rules.check_out_time.to_12h(),
        door_code: p.access.door_code.clone(),
        wifi_ssid: p.access.wifi_ssid.clone(),
        stay_state: StayState::Vacant,
        next_transition_at: None,
        access: None,
        access_withheld: None,
        turnover: None,
        feeds: Vec::new(),
        stay_booking: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::short_text::ShortText;
    use crate::basics::stay::Stay;
    use crate::demo;
    use chrono::Days;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn entry(code: &str, a: &str, b: &str, kind: EntryKind) -> CalendarEntry {
        let stay = Stay::new(d(a), d(b)).unwrap();
        CalendarEntry { holder: code.into(), stay, kind, guest_name: format!("guest of {code}").into(), guests: 2 }
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn occupied_counts_only_confirmed_stays_but_arrivals_include_requests() {
        let p = demo::sea_view(); // Europe/Lisbon
        let calendar = [
            entry("BK-OUT", "2026-11-18", "2026-11-22", EntryKind::Booked),
            entry("BK-IN", "2026-11-22", "2026-11-25", EntryKind::Held),
            entry("blk_1", "2026-11-22", "2026-11-23", EntryKind::Blocked),
            entry("BK-NEXT", "2026-11-28", "2026-11-30", EntryKind::Booked),
        ];
        let day = PropertyDay::new(&p, &calendar, 1, at("2026-11-22T12:00:00Z"));
        let s = summarize(at("2026-11-22T12:00:00Z"), chrono_tz::UTC, &[day]);
        let ps = &s.properties[0];
        assert!(!ps.occupied, "a pending request does not occupy");
        assert!(ps.check_in_today && ps.check_out_today);
        assert_eq!(ps.current_booking, None);
        assert_eq!(ps.next_arrival.as_ref().map(|n| (n.code.as_str(), n.status)), Some(("BK-IN", "pending")));
        assert_eq!((ps.check_in_time.as_str(), ps.check_out_time.as_str()), ("3:00 PM", "11:00 AM"));
        assert_eq!(
            s.totals,
            Totals {
                properties: 1,
                occupied_tonight: 0,
                check_ins_today: 1,
                check_outs_today: 1,
                pending_bookings: 1,
                ..Totals::default()
            }
        );
    }

    #[test]
    fn the_current_stay_is_not_also_the_next_arrival() {
        let p = demo::sea_view();
        let calendar = [
            entry("BK-NOW", "2026-11-22", "2026-11-25", EntryKind::Booked),
            entry("BK-LATER", "2026-12-01", "2026-12-03", EntryKind::Held),
        ];
        let day = PropertyDay::new(&p, &calendar, 1, at("2026-11-22T12:00:00Z"));
        let s = summarize(at("2026-11-22T12:00:00Z"), chrono_tz::UTC, &[day]);
        let ps = &s.properties[0];
        assert_eq!(ps.current_booking.as_ref().map(|c| c.code.as_str()), Some("BK-NOW"));
        assert_eq!(ps.next_arrival.as_ref().map(|n| n.code.as_str()), Some("BK-LATER"));
        assert_eq!(s.totals.occupied_tonight, 1);
    }

    #[test]
    fn a_calendar_booked_far_ahead_gives_the_earliest_next_arrival_and_todays_counts() {
        let p = demo::sea_view();
        let mut calendar = vec![
            entry("BK-OUT", "2026-11-20", "2026-11-22", EntryKind::Booked),
            entry("BK-NOW", "2026-11-22", "2026-11-24", EntryKind::Booked),
            entry("blk_2", "2026-11-24", "2026-11-25", EntryKind::Blocked),
        ];
        let start = d("2026-11-25");
        for i in 0..500u64 {
            let from = start + Days::new(2 * i);
            calendar.push(CalendarEntry {
                holder: format!("BK-{i:04}").into(),
                stay: Stay::new(from, from + Days::new(1)).unwrap(),
                kind: EntryKind::Held,
                guest_name: ShortText::default(),
                guests: 1,
            });
        }
        let day = PropertyDay::new(&p, &calendar, 500, at("2026-11-22T12:00:00Z"));
        let s = summarize(at("2026-11-22T12:00:00Z"), chrono_tz::UTC, &[day]);
        let ps = &s.properties[0];
        assert_eq!(ps.current_booking.as_ref().map(|c| c.code.as_str()), Some("BK-NOW"));
        assert_eq!(ps.next_arrival.as_ref().map(|n| (n.code.as_str(), n.check_in)), Some(("BK-0000", start)));
        assert_eq!(
            s.totals,
            Totals {
                properties: 1,
                occupied_tonight: 1,
                check_ins_today: 1,
                check_outs_today: 1,
                pending_bookings: 500,
                ..Totals::default()
            }
        );
    }

    #[test]
    fn each_property_is_judged_on_its_own_today() {
        // 2026-11-22T12:30Z is 01:30 on the 23rd in Auckland and 04:30 on the 22nd in Los Angeles.
        let now = at("2026-11-22T12:30:00Z");
        let mut akl = demo::sea_view();
        akl.timezone = chrono_tz::Pacific::Auckland;
        let mut lax = demo::sea_view();
        lax.timezone = chrono_tz::America::Los_Angeles;
        let calendar = [entry("BK-23", "2026-11-23", "2026-11-25", EntryKind::Booked)];
        let days = [PropertyDay::new(&akl, &calendar, 0, now), PropertyDay::new(&lax, &calendar, 0, now)];
        let s = summarize(now, chrono_tz::UTC, &days);
        assert_eq!(s.date, d("2026-11-22"));
        assert_eq!(
            (s.properties[0].date, s.properties[0].occupied, s.properties[0].check_in_today),
            (d("2026-11-23"), true, true)
        );
        assert_eq!(
            (s.properties[1].date, s.properties[1].occupied, s.properties[1].check_in_today),
            (d("2026-11-22"), false, false)
        );
    }

    #[test]
    fn the_direct_json_is_what_serde_writes() {
        let mut p = demo::sea_view();
        p.name = "Zoë's \"Sea\" View".into();
        let calendar = [
            entry("BK-NOW", "2026-11-22", "2026-11-25", EntryKind::Booked),
            entry("BK-LATER", "2026-12-01", "2026-12-03", EntryKind::Held),
        ];
        let (loft, now) = (demo::harbour_loft(), at("2026-11-22T12:00:00.123Z"));
        let days = [PropertyDay::new(&p, &calendar, 1, now), PropertyDay::new(&loft, &[], 0, now)];
        let s = summarize(now, chrono_tz::UTC, &days);
        assert_eq!(String::from_utf8(s.to_json()).unwrap(), serde_json::to_string(&s).unwrap());
    }

    #[test]
    fn the_summary_serialises_with_the_spec_field_names() {
        let p = demo::sea_view();
        let now = at("2026-11-22T07:39:21.123Z");
        let s = summarize(now, chrono_tz::UTC, &[PropertyDay::new(&p, &[], 0, now)]);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["generatedAt"], "2026-11-22T07:39:21.123Z");
        assert_eq!(json["totals"]["occupiedTonight"], 0);
        let ps = &json["properties"][0];
        for field in [
            "slug",
            "name",
            "occupied",
            "checkInToday",
            "checkOutToday",
            "currentBooking",
            "nextArrival",
            "checkInTime",
            "checkOutTime",
            "doorCode",
            "wifiSsid",
        ] {
            assert!(ps.get(field).is_some(), "{field} missing");
        }
        assert!(ps["currentBooking"].is_null());
    }
}
