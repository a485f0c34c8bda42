//! The host's day at a glance, for the admin dashboard: today's arrivals and
//! departures (each property judged on its own today) and every pending request.

use chrono::{Days, NaiveDate};

use super::Rental;
use crate::bookings::booking::{Booking, BookingQuery, Status};
use crate::error::Result;
use crate::stays::occupancy::today_in;
use crate::store::Store;

/// At most this many pending requests are listed.
pub const MAX_PENDING_LISTED: usize = 500;

/// Today's movements and the requests awaiting an answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agenda {
    /// Pending or confirmed stays arriving today, by property.
    pub arrivals: Vec<Booking>,
    /// Pending or confirmed stays leaving today, by property.
    pub departures: Vec<Booking>,
    /// Every pending request (up to `MAX_PENDING_LISTED`, 500), by check-in.
    pub pending: Vec<Booking>,
}

impl<S: Store> Rental<S> {
    /// Today's arrivals and departures of active properties, and the pending requests.
    pub fn agenda(&self) -> Result<Agenda> {
        let now = self.now();
        let todays: Vec<(String, NaiveDate)> =
            self.properties()?.into_iter().map(|p| (p.slug.to_string(), today_in(p.timezone, now))).collect();
        let (Some(first), Some(last)) = (todays.iter().map(|t| t.1).min(), todays.iter().map(|t| t.1).max()) else {
            return Ok(Agenda::default());
        };
        let around = BookingQuery {
            statuses: vec![Status::Pending, Status::Confirmed],
            from: first.checked_sub_days(Days::new(1)),
            to: last.checked_add_days(Days::new(1)),
            ..page_query()
        };
        let near = self.all_pages(around, usize::MAX)?;
        let pending = BookingQuery { statuses: vec![Status::Pending], ..page_query() };
        let (arrivals, departures) = movements(near, &todays);
        Ok(Agenda { arrivals, departures, pending: self.all_pages(pending, MAX_PENDING_LISTED)? })
    }

    /// Every booking of `query`, page after page, up to `max`.
    fn all_pages(&self, mut query: BookingQuery, max: usize) -> Result<Vec<Booking>> {
        let mut out = Vec::new();
        loop {
            let page = self.bookings(&query)?;
            out.extend(page.data);
            match page.next {
                Some(next) if out.len() < max => query.after = Some(next),
                _ => break,
            }
        }
        out.truncate(max);
        Ok(out)
    }
}

fn page_query() -> BookingQuery {
    BookingQuery { limit: BookingQuery::MAX_LIMIT, ..BookingQuery::default() }
}

/// Splits stays into those arriving and those leaving on their property's
/// today (`todays`: slug and local date); stays of other properties are left out.
fn movements(stays: Vec<Booking>, todays: &[(String, NaiveDate)]) -> (Vec<Booking>, Vec<Booking>) {
    let today_of = |b: &Booking| todays.iter().find(|(slug, _)| slug == b.property.as_str()).map(|t| t.1);
    let (mut arrivals, mut departures) = (Vec::new(), Vec::new());
    for b in stays {
        let Some(today) = today_of(&b) else { continue };
        if b.check_out() == today {
            departures.push(b.clone());
        }
        if b.check_in() == today {
            arrivals.push(b);
        }
    }
    arrivals.sort_by(|a, b| a.property.cmp(&b.property).then_with(|| a.code.cmp(&b.code)));
    departures.sort_by(|a, b| a.property.cmp(&b.property).then_with(|| a.code.cmp(&b.code)));
    (arrivals, departures)
}
