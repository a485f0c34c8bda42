//! `/admin/bookings`: every booking, searched by code, guest name or e-mail
//! (any part, any case) and filtered by status, property, source and dates,
//! 50 a page in check-in order, each page read from where the last one ended.

use rental_core::words::count;
use std::sync::Arc;

use maud::{Markup, html};
use rental_core::booking::Cursor;
use rental_core::{Booking, BookingQuery, Rental, Slug, Source, Status, Store, format_amount};

use super::page::{Page, Section, shell};
use super::session::Session;
use crate::problem::Problem;
use crate::reply::blocking;
use crate::request::Query;

/// Bookings shown per page.
const PER_PAGE: usize = 50;

/// The most bookings one page request looks through for the text searched;
/// past it the page offers to search further from where it stopped.
const MAX_SEARCHED: usize = 10_000;

/// What the search form asked for.
#[derive(Debug, Clone, Default)]
struct Search {
    text: String,
    status: Option<Status>,
    property: Option<Slug>,
    source: Option<Source>,
    from: Option<chrono::NaiveDate>,
    to: Option<chrono::NaiveDate>,
    /// Where this page starts: after this booking in check-in order.
    after: Option<Cursor>,
}

impl Search {
    fn of(query: &Query) -> Result<Search, Problem> {
        let some = |name: &str| query.get(name).filter(|v| !v.is_empty());
        Ok(Search {
            text: some("q").unwrap_or_default().trim().to_owned(),
            status: some("status")
                .map(str::parse)
                .transpose()
                .map_err(|e: String| Problem::invalid_parameter("status", e))?,
            property: some("property")
                .map(Slug::parse)
                .transpose()
                .map_err(|e| Problem::invalid_parameter("property", e.to_string()))?,
            source: some("source")
                .map(Source::parse)
                .transpose()
                .map_err(|e| Problem::invalid_parameter("source", e.to_string()))?,
            from: some("from")
                .map(|d| rental_core::parse_date(d).ok_or_else(|| Problem::invalid_parameter("from", "a date")))
                .transpose()?,
            to: some("to")
                .map(|d| rental_core::parse_date(d).ok_or_else(|| Problem::invalid_parameter("to", "a date")))
                .transpose()?,
            after: some("after")
                .map(|c| {
                    Cursor::decode(c).ok_or_else(|| {
                        Problem::invalid_parameter(
                            "after",
                            "not a position from this page's links; start again from the first page",
                        )
                    })
                })
                .transpose()?,
        })
    }

    /// True when `b` matches the text: a part of its code, guest name or e-mail, in any case.
    fn matches(&self, b: &Booking) -> bool {
        let needle = self.text.to_lowercase();
        needle.is_empty()
            || [b.code.as_str(), b.guest_name.as_str(), b.guest_email.as_str()]
                .iter()
                .any(|h| h.to_lowercase().contains(&needle))
    }

    /// The query string of this search from `after` (from the first booking when `None`).
    fn link(&self, after: Option<&Cursor>) -> String {
        let pairs = [
            ("q", Some(self.text.clone())),
            ("status", self.status.map(|s| s.to_string())),
            ("property", self.property.as_ref().map(ToString::to_string)),
            ("source", self.source.as_ref().map(ToString::to_string)),
            ("from", self.from.map(|d| d.to_string())),
            ("to", self.to.map(|d| d.to_string())),
            ("after", after.map(Cursor::encode)),
        ];
        let query: Vec<String> = pairs
            .into_iter()
            .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| format!("{k}={}", form_encode(&v))))
            .collect();
        format!("/admin/bookings?{}", query.join("&"))
    }
}

/// One page of a search: up to [`PER_PAGE`] bookings, and where the next
/// page starts when there is more to look through.
struct Found {
    bookings: Vec<Booking>,
    next: Option<Cursor>,
    /// True when the page ends because [`MAX_SEARCHED`] bookings were looked
    /// through, not because it is full.
    stopped_early: bool,
}

impl Search {
    /// Reads the store from `after`, a store page at a time, keeping the
    /// bookings whose text matches, until the page is full, the bookings end,
    /// or `max_searched` ([`MAX_SEARCHED`]) were looked through.
    fn one_page<S: Store>(&self, rental: &Rental<S>, max_searched: usize) -> rental_core::Result<Found> {
        let mut query = BookingQuery {
            statuses: self.status.into_iter().collect(),
            property: self.property.clone(),
            source: self.source.clone(),
            from: self.from,
            to: self.to,
            after: self.after.clone(),
            limit: if self.text.is_empty() { PER_PAGE + 1 } else { BookingQuery::MAX_LIMIT.min(max_searched) },
            ..BookingQuery::default()
        };
        let mut bookings = Vec::new();
        let mut searched = 0;
        loop {
            let page = rental.bookings(&query)?;
            searched += page.data.len();
            for b in page.data {
                query.after = Some(Cursor::after(&b));
                if !self.matches(&b) {
                    continue;
                }
                if bookings.len() == PER_PAGE {
                    return Ok(Found { next: bookings.last().map(Cursor::after), bookings, stopped_early: false });
                }
                bookings.push(b);
            }
            if page.next.is_none() {
                return Ok(Found { bookings, next: None, stopped_early: false });
            }
            if searched >= max_searched {
                return Ok(Found { bookings, next: query.after, stopped_early: true });
            }
        }
    }
}

fn form_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The bookings page.
pub async fn page<S: Store + 'static>(rental: &Arc<Rental<S>>, session: &Session, query: &Query) -> Page {
    let search = match Search::of(query) {
        Ok(search) => search,
        Err(p) => return super::page::message(p.status, "Bad request", &super::explain(&p)),
    };
    let s = search.clone();
    let loaded = blocking(rental, move |r| Ok((s.one_page(r, MAX_SEARCHED)?, r.all_properties()?))).await;
    let (found, properties) = match loaded {
        Ok(loaded) => loaded,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let body = html! {
        section.card #search {
            form method="get" action="/admin/bookings" {
                div.grid2 {
                    div { label for="q" { "Code, guest name or e-mail" } input #q type="text" name="q" value=(search.text); }
                    div { label for="f-status" { "Status" } select #f-status name="status" {
                        option value="" { "any" }
                        @for st in ["pending", "confirmed", "cancelled"] {
                            option value=(st) selected[search.status.map(|s| s.to_string()).as_deref() == Some(st)] { (st) }
                        }
                    } }
                    div { label for="f-property" { "Property" } select #f-property name="property" {
                        option value="" { "any" }
                        @for p in &properties { option value=(p.slug) selected[search.property.as_ref() == Some(&p.slug)] { (p.name) } }
                    } }
                    div { label for="f-source" { "Source" } input #f-source type="text" name="source" placeholder="api, airbnb..." value=(search.source.as_ref().map(ToString::to_string).unwrap_or_default()); }
                    div { label for="f-from" { "Staying from" } input #f-from type="date" name="from" value=(search.from.map(|d| d.to_string()).unwrap_or_default()); }
                    div { label for="f-to" { "Staying before" } input #f-to type="date" name="to" value=(search.to.map(|d| d.to_string()).unwrap_or_default()); }
                }
                p { button type="submit" { "Search" } " " a href="/admin/bookings" { "Clear" } }
            }
        }
        section.card #results {
            @if search.after.is_none() && found.next.is_none() {
                h2 { (found.bookings.len()) " booking" @if found.bookings.len() != 1 { "s" } }
            } @else {
                h2 { "Bookings" }
            }
            (table(found.bookings.iter()))
            @if search.after.is_some() || found.next.is_some() {
                nav.actions aria-label="Pages" {
                    @if search.after.is_some() { a #page-first href=(search.link(None)) { "← First page" } }
                    @match (&found.next, found.stopped_early) {
                        (Some(next), false) => { a #page-next href=(search.link(Some(next))) { "Next →" } }
                        (Some(next), true) => {
                            span.muted { "Looked through " (MAX_SEARCHED) " bookings." }
                            a #page-next href=(search.link(Some(next))) { "Search further →" }
                        }
                        (None, _) => {}
                    }
                }
            }
        }
    };
    shell("Bookings", Some(Section::Bookings), Some(session), &body)
}

fn table<'a>(bookings: impl Iterator<Item = &'a Booking>) -> Markup {
    html! {
        div.table { table {
            thead { tr { th { "Booking" } th { "Guest" } th { "Stay" } th { "Total" } th { "Status" } } }
            tbody { @for b in bookings { tr data-code=(b.code) {
                td { a href=(format!("/admin/bookings/{}", b.code)) { strong { (b.code) } } br; span.muted { (b.property_name) } }
                td { (b.guest_name) br; span.muted { (b.guest_email) } }
                td { (b.check_in()) " → " (b.check_out()) br; span.muted { (count(b.nights, "night")) " · " (count(b.guests, "guest")) } }
                td { (format_amount(b.total, &b.currency)) }
                td { span.badge { (b.status) } br; span.muted { (b.source.as_str()) } }
            } } }
        } }
    }
}

#[cfg(test)]
mod tests {
    use rental_core::{ManualClock, MemoryStore, NewBooking};

    use super::*;

    /// `n` three-night bookings at sea-view, a night apart, guests `Guest 0`, `Guest 1`…
    fn booked(n: u32) -> Rental<MemoryStore> {
        let clock = Arc::new(ManualClock::new("2026-11-22T10:00:00Z".parse().unwrap()));
        let rental = Rental::new(MemoryStore::new()).with_clock(clock);
        rental.import_properties(&rental_core::demo::properties()).unwrap();
        let first = rental_core::parse_date("2027-01-01").unwrap();
        for i in 0..n {
            let check_in = first + chrono::Days::new(u64::from(i) * 4);
            let stay = rental_core::Stay::new(check_in, check_in + chrono::Days::new(3)).unwrap();
            let request = NewBooking {
                property: "sea-view".parse().unwrap(),
                check_in: stay.check_in(),
                check_out: stay.check_out(),
                guests: 2,
                guest_name: format!("Guest {i}"),
                guest_email: "guest@example.com".into(),
                notes: None,
                source: None,
                children: 0,
                pets: 0,
                promo_code: None,
                locale: None,
            };
            rental.create_booking(&request, None).unwrap();
        }
        rental
    }

    #[test]
    fn a_search_stops_after_looking_through_its_limit_and_goes_on_from_there() {
        let rental = booked(30);
        let search = Search { text: "guest 2".into(), ..Search::default() };
        let first = search.one_page(&rental, 10).unwrap();
        let names = |found: &Found| found.bookings.iter().map(|b| b.guest_name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&first), ["Guest 2"], "the first 10 bookings looked through");
        assert!(first.stopped_early);
        let further = Search { after: first.next.clone(), ..search.clone() }.one_page(&rental, 10).unwrap();
        assert!(further.bookings.is_empty() && further.stopped_early, "Guest 10 to 19 looked through");
        let last = Search { after: further.next.clone(), ..search }.one_page(&rental, 10).unwrap();
        assert_eq!(names(&last), (20..30).map(|i| format!("Guest {i}")).collect::<Vec<_>>());
        assert!(last.next.is_none() && !last.stopped_early, "the bookings ended");
    }
}
