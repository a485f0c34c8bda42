//! The second part of the occupancy summary (docs/API.md section 15): each
//! property's stay state, door code, turnover and feeds, and their totals.

use chrono::{DateTime, Utc};

use crate::bookings::calendar::{CalendarEntry, EntryKind};
use crate::bookings::visit::Visit;
use crate::channels::feed_status::{FeedFreshness, FeedStatus};
use crate::properties::property::Property;
use crate::stays::access::{self, Access, DoorCodeMode};
use crate::stays::access_gate::{self as gate, GateFacts, Withheld};
use crate::stays::occupancy::{PropertyDay, PropertySummary, Summary};
use crate::stays::stay_state::{StayState, StayTimes, state_at};
use crate::stays::turnover::turnover;

/// What section 15 needs of one property beyond its [`PropertyDay`].
#[derive(Debug, Clone, Copy)]
pub struct StayDay<'a> {
    /// The visits of the bookings [`needed_visits`] named (absent ones count as nothing recorded).
    pub visits: &'a [(String, Visit, GateFacts)],
    /// Its configured feeds' freshness.
    pub feeds: &'a [FeedStatus],
    /// Whether a payment provider is configured (the access gate's default of `accessRequiresPayment`).
    pub payments_configured: bool,
}

/// The confirmed stays whose visits the summary reads: those departing
/// today or later that arrived by today, and the first one arriving after.
pub fn needed_visits<'a>(day: &PropertyDay<'a>, summary: &PropertySummary) -> Vec<&'a CalendarEntry> {
    let today = summary.date;
    let mut stays: Vec<&CalendarEntry> =
        day.until(today).iter().filter(|e| e.kind == EntryKind::Booked && e.stay.check_out() >= today).collect();
    stays.extend(day.next_confirmed);
    stays
}

/// Fills in the section-15 fields of `summary` (made from `days` at `now`)
/// from `stays`, one per property in the same order, and the totals.
pub fn complete(summary: &mut Summary, now: DateTime<Utc>, days: &[PropertyDay<'_>], stays: &[StayDay<'_>]) {
    for ((ps, day), stay) in summary.properties.iter_mut().zip(days).zip(stays) {
        complete_one(ps, now, day, stay);
    }
    let properties = &summary.properties;
    summary.totals.checked_in = properties.iter().filter(|p| p.stay_state == StayState::CheckedIn).count();
    summary.totals.stale_feeds = properties.iter().map(|p| p.feeds.iter().filter(|f| f.stale).count()).sum();
}

fn complete_one(ps: &mut PropertySummary, now: DateTime<Utc>, day: &PropertyDay<'_>, stay: &StayDay<'_>) {
    let p = day.property;
    let visit_of = |code: &str| stay.visits.iter().find(|(c, _, _)| c == code).map(|(_, v, f)| (v.clone(), *f));
    let relevant: Vec<(&CalendarEntry, Visit)> = needed_visits(day, ps)
        .into_iter()
        .map(|e| (e, visit_of(&e.holder).map(|(v, _)| v).unwrap_or_default()))
        .collect();
    let times: Vec<StayTimes> =
        relevant.iter().map(|(e, v)| StayTimes::of(p, e.stay.check_in(), e.stay.check_out(), v)).collect();
    let state = state_at(p, now, &times);
    ps.stay_state = state.state;
    ps.next_transition_at = state.next_transition_at;
    ps.stay_booking = state.stay.and_then(|i| relevant.get(i)).map(|(e, _)| e.holder.as_str().to_owned());
    ps.access = current_access(p, now, &relevant);
    // The stay page's gate, by the same function: what shuts it holds the code
    // back here too, but time alone does not (home automation sets a lock
    // before the guest may read its code: `access` is the next code to come).
    let shut = ps.access.as_ref().and_then(|a| {
        let (e, visit) = relevant.iter().find(|(e, _)| e.holder.as_str() == a.booking.as_str())?;
        // A stay the store does not know (absent visit) has nothing that opens its gate.
        let facts = visit_of(&e.holder).map(|(_, f)| f).unwrap_or_default();
        let conditions = gate::Conditions { payments_configured: stay.payments_configured, deposit_held: None };
        let verdict = gate::check_stay(facts, e.stay, visit, p, now, conditions);
        (!verdict.waits_only_for_time()).then(|| Withheld {
            booking: a.booking.clone(),
            missing: verdict.missing,
            reveal_at: verdict.reveal_at,
        })
    });
    if let Some(withheld) = shut {
        if ps.access.as_ref().is_some_and(|a| a.valid_at(now)) {
            ps.door_code.clear();
        }
        ps.access = None;
        ps.access_withheld = Some(withheld);
    } else if let Some(valid) = ps.access.as_ref().filter(|a| a.valid_at(now)) {
        ps.door_code.clone_from(&valid.code);
    }
    let today = ps.date;
    let leaving = relevant
        .iter()
        .zip(&times)
        .filter(|((e, _), _)| e.stay.check_in() <= today)
        .min_by_key(|((e, _), _)| e.stay.check_out());
    ps.turnover = leaving.map(|((e, _), t)| {
        let next = day
            .calendar
            .iter()
            .find(|n| n.kind != EntryKind::Blocked && n.holder != e.holder && n.stay.check_in() >= t.departure);
        turnover(p, t, next.map(|n| n.stay.check_in()))
    });
    ps.feeds = stay.feeds.iter().map(FeedFreshness::from).collect();
}

/// The code valid now, else the next to become valid: the stay's own code
/// (`per_stay`), or the property's `doorCode` over the stay's window (`static`).
fn current_access(p: &Property, now: DateTime<Utc>, relevant: &[(&CalendarEntry, Visit)]) -> Option<Access> {
    let accesses = relevant.iter().filter_map(|(e, visit)| match p.access.door_code_mode {
        DoorCodeMode::PerStay => visit.access.clone(),
        DoorCodeMode::Static if p.access.door_code.is_empty() => None,
        DoorCodeMode::Static => {
            let (valid_from, valid_until) =
                access::window(p, e.stay.check_in(), e.stay.check_out(), visit.checked_out_at);
            let booking = crate::basics::ids::BookingCode::from(e.holder.as_str());
            Some(Access { code: p.access.door_code.clone(), valid_from, valid_until, booking })
        }
    });
    let upcoming: Vec<Access> = accesses.filter(|a| now < a.valid_until).collect();
    let valid = upcoming.iter().find(|a| a.valid_at(now));
    valid.or_else(|| upcoming.iter().min_by_key(|a| a.valid_from)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::stay::Stay;
    use crate::bookings::calendar::CalendarEntry;
    use crate::channels::feed_status;
    use crate::demo;
    use crate::stays::access::DoorCodeMode;
    use crate::stays::occupancy::summarize;
    use chrono::NaiveDate;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn entry(code: &str, a: &str, b: &str, kind: EntryKind) -> CalendarEntry {
        CalendarEntry {
            holder: code.into(),
            stay: Stay::new(d(a), d(b)).unwrap(),
            kind,
            guest_name: "G".into(),
            guests: 2,
        }
    }

    fn coded(code: &str, booking: &str, from: &str, until: &str) -> Visit {
        let booking = crate::basics::ids::BookingCode::from(booking);
        Visit {
            access: Some(Access { code: code.into(), valid_from: at(from), valid_until: at(until), booking }),
            ..Visit::default()
        }
    }

    const OPEN: GateFacts = GateFacts { confirmed: true, paid: true, has_email: true };

    fn summary_at(p: &Property, now: &str, calendar: &[CalendarEntry], stay: StayDay<'_>) -> Summary {
        let days = [PropertyDay::new(p, calendar, 0, at(now))];
        let mut s = summarize(at(now), chrono_tz::UTC, &days);
        complete(&mut s, at(now), &days, &[stay]);
        s
    }

    #[test]
    fn a_same_day_turnover_shows_the_leaving_code_then_the_arriving_one() {
        let mut p = demo::sea_view(); // Lisbon, 15:00/11:00
        p.access.door_code_mode = DoorCodeMode::PerStay;
        let calendar = [
            entry("BK-OUT", "2026-12-18", "2026-12-20", EntryKind::Booked),
            entry("BK-IN", "2026-12-20", "2026-12-23", EntryKind::Booked),
        ];
        let visits = [
            ("BK-OUT".to_owned(), coded("111111", "BK-OUT", "2026-12-18T15:00:00Z", "2026-12-20T11:00:00Z"), OPEN),
            ("BK-IN".to_owned(), coded("222222", "BK-IN", "2026-12-20T15:00:00Z", "2026-12-23T11:00:00Z"), OPEN),
        ];
        let stay = StayDay { visits: &visits, feeds: &[], payments_configured: false };
        let morning = summary_at(&p, "2026-12-20T09:00:00Z", &calendar, stay);
        let ps = &morning.properties[0];
        assert_eq!((ps.stay_state, ps.door_code.as_str()), (StayState::CheckedIn, "111111"));
        assert_eq!(morning.totals.checked_in, 1);
        let t = ps.turnover.unwrap();
        assert_eq!(
            (t.same_day, t.cleaning_from, t.cleaning_until),
            (true, at("2026-12-20T11:00:00Z"), Some(at("2026-12-20T15:00:00Z")))
        );
        let noon = summary_at(&p, "2026-12-20T12:00:00Z", &calendar, stay);
        let ps = &noon.properties[0];
        assert_eq!(ps.stay_state, StayState::CheckedOut);
        assert_eq!(ps.access.as_ref().map(|a| a.code.as_str()), Some("222222"), "the next code to become valid");
        assert_eq!(ps.door_code, "4821", "no code valid now: the static one");
        assert_eq!(ps.next_transition_at, Some(at("2026-12-20T15:00:00Z")));
    }

    #[test]
    fn a_static_code_takes_the_window_of_the_stay_and_stale_feeds_are_counted() {
        let p = demo::sea_view();
        let calendar = [entry("BK-NOW", "2026-12-19", "2026-12-21", EntryKind::Booked)];
        let feeds = [feed_status::status(
            &p.slug,
            &crate::basics::ids::Source::parse("airbnb").unwrap(),
            None,
            at("2026-12-20T09:00:00Z"),
            chrono::TimeDelta::minutes(30),
        )];
        let visits = [("BK-NOW".to_owned(), Visit::default(), OPEN)];
        let stay = StayDay { visits: &visits, feeds: &feeds, payments_configured: false };
        let s = summary_at(&p, "2026-12-20T09:00:00Z", &calendar, stay);
        let ps = &s.properties[0];
        let access = ps.access.as_ref().unwrap();
        assert_eq!((access.code.as_str(), access.valid_from), ("4821", at("2026-12-19T15:00:00Z")));
        assert_eq!((ps.feeds.len(), ps.feeds[0].stale, s.totals.stale_feeds), (1, true, 1));
    }

    #[test]
    fn time_alone_does_not_hold_the_next_code_back_but_an_unpaid_stay_does() {
        let mut p = demo::sea_view(); // details 48 h before 15:00
        p.access.access_requires_payment = Some(true);
        let calendar = [entry("BK-LATER", "2026-12-20", "2026-12-23", EntryKind::Booked)];
        let now = "2026-11-22T09:00:00Z";
        let paid = [("BK-LATER".to_owned(), Visit::default(), OPEN)];
        let stay = StayDay { visits: &paid, feeds: &[], payments_configured: false };
        let ps = summary_at(&p, now, &calendar, stay).properties.remove(0);
        assert_eq!((ps.access.map(|a| a.valid_from), ps.access_withheld), (Some(at("2026-12-20T15:00:00Z")), None));
        let unpaid = [("BK-LATER".to_owned(), Visit::default(), GateFacts { paid: false, ..OPEN })];
        let stay = StayDay { visits: &unpaid, feeds: &[], payments_configured: false };
        let ps = summary_at(&p, now, &calendar, stay).properties.remove(0);
        let withheld = ps.access_withheld.expect("withheld");
        assert_eq!((ps.access, withheld.missing), (None, vec![gate::Missing::TooEarly, gate::Missing::Unpaid]));
        assert_eq!((withheld.reveal_at, ps.door_code.as_str()), (at("2026-12-18T15:00:00Z"), "4821"), "none valid now");
    }
}
