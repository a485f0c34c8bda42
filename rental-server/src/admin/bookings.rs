//! `/admin/bookings`: every booking, searched by code, guest name or e-mail
//! (any part, any case) and filtered by status, property, source and dates, 50 a page.

use std::sync::Arc;

use maud::{Markup, html};
use rental_core::{Booking, BookingQuery, Rental, Slug, Source, Status, Store};

use super::page::{Page, Section, money, shell};
use super::session::Session;
use crate::handlers::blocking;
use crate::problem::Problem;
use crate::request::Query;

/// Bookings shown per page.
const PER_PAGE: usize = 50;

/// What the search form asked for.
#[derive(Debug, Clone, Default)]
struct Search {
    text: String,
    status: Option<Status>,
    property: Option<Slug>,
    source: Option<Source>,
    from: Option<chrono::NaiveDate>,
    to: Option<chrono::NaiveDate>,
    page: usize,
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
            page: some("page").and_then(|p| p.parse().ok()).unwrap_or(1).max(1),
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

    /// The query string of this search on page `page`.
    fn link(&self, page: usize) -> String {
        let pairs = [
            ("q", Some(self.text.clone())),
            ("status", self.status.map(|s| s.to_string())),
            ("property", self.property.as_ref().map(ToString::to_string)),
            ("source", self.source.as_ref().map(ToString::to_string)),
            ("from", self.from.map(|d| d.to_string())),
            ("to", self.to.map(|d| d.to_string())),
            ("page", Some(page.to_string())),
        ];
        let query: Vec<String> = pairs
            .into_iter()
            .filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| format!("{k}={}", form_encode(&v))))
            .collect();
        format!("/admin/bookings?{}", query.join("&"))
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
    let loaded = blocking(rental, move |r| {
        let mut found = Vec::new();
        let mut after = None;
        loop {
            let q = BookingQuery {
                statuses: s.status.into_iter().collect(),
                property: s.property.clone(),
                source: s.source.clone(),
                from: s.from,
                to: s.to,
                after,
                limit: BookingQuery::MAX_LIMIT,
                ..BookingQuery::default()
            };
            let page = r.bookings(&q)?;
            found.extend(page.data.into_iter().filter(|b| s.matches(b)));
            match page.next {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        Ok((found, r.all_properties()?))
    })
    .await;
    let (found, properties) = match loaded {
        Ok(loaded) => loaded,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let pages = found.len().div_ceil(PER_PAGE).max(1);
    let page = search.page.min(pages);
    let shown = found.iter().skip((page - 1) * PER_PAGE).take(PER_PAGE);
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
            h2 { (found.len()) " booking" @if found.len() != 1 { "s" } }
            (table(shown))
            @if pages > 1 {
                nav.actions aria-label="Pages" {
                    @if page > 1 { a #page-prev href=(search.link(page - 1)) { "← Previous" } }
                    span.muted { "Page " (page) " of " (pages) }
                    @if page < pages { a #page-next href=(search.link(page + 1)) { "Next →" } }
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
                td { (b.check_in()) " → " (b.check_out()) br; span.muted { (b.nights) " nights · " (b.guests) " guests" } }
                td { (money(b.total)) }
                td { span.badge { (b.status) } br; span.muted { (b.source.as_str()) } }
            } } }
        } }
    }
}
