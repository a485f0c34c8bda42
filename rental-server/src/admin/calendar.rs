//! `/admin/calendar`: every property on one grid, a row each and a column
//! per night; stays as bars by status and source, blocks hatched, blocks added and removed.

use std::fmt::Write as _;
use std::sync::Arc;

use chrono::{Days, NaiveDate};
use maud::{Markup, PreEscaped, html};
use rental_core::booking::Page as BookingPage;
use rental_core::calendar::{Block, NewBlock};
use rental_core::{Booking, BookingQuery, Property, Rental, Status, Store};

use super::Act;
use super::page::{self, Page, Section, button_form, csrf_field, shell};
use super::session::{Flash, Session};
use crate::problem::Problem;
use crate::reply::blocking;
use crate::request::Query;

/// What one calendar page shows.
struct View {
    from: NaiveDate,
    nights: u32,
    today: NaiveDate,
    properties: Vec<Property>,
    bookings: Vec<Booking>,
    blocks: Vec<Block>,
}

const CSS: &str = r"
.cal{overflow-x:auto;-webkit-overflow-scrolling:touch;background:#fff;border:1px solid #d8dee4;border-radius:10px;margin:0 0 1rem}
.cal-row:not(.cal-head){background-image:repeating-linear-gradient(to right,#f0f2f4 0 1px,transparent 1px var(--day));background-position:var(--name) 0}
.cal-row{display:grid;grid-template-columns:var(--name) repeat(var(--n),var(--day));grid-auto-rows:2.1rem;min-width:max-content;border-bottom:1px solid #eef1f4}
.cal{--name:11rem;--day:2.1rem}
@media (max-width:600px){.cal{--name:6.5rem}}
.cal-name{grid-row:1;grid-column:1;position:sticky;left:0;z-index:3;background:#fff;padding:.35rem .5rem;font-size:.85rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;border-right:1px solid #d8dee4}
.cal-day{grid-row:1;border-left:1px solid #f0f2f4;font-size:.7rem;text-align:center;color:#59636e;line-height:1.1;padding-top:.2rem}
.cal-day.we{background:#f8f9fb}.cal-day.today{background:#e6f0fb;box-shadow:inset 2px 0 #2c5282}
.cal-head .cal-day{font-weight:600}
.stay{display:block;grid-row:1;z-index:2;margin:.3rem 1px;border-radius:5px;font-size:.72rem;line-height:1.5rem;padding:0 .3rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;text-decoration:none;color:#1f2328;border:1px solid}
.stay.pending{background:#fff4e0;border-color:#d4a72c}.stay.confirmed{background:#dafbe1;border-color:#1a7f37}
.stay .src{display:inline-block;font-weight:700;font-size:.65rem;border-radius:3px;padding:0 .2rem;margin-right:.25rem;background:#fff;border:1px solid currentColor}
.stay.src-channel .src{color:#8250df}.stay.src-agent .src{color:#0969da}.stay.src-direct .src{color:#59636e}
.stay.block{background:repeating-linear-gradient(135deg,#eef1f4 0 6px,#c9d1d9 6px 9px);border-color:#8c959f;color:#1f2328}
.legend{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;font-size:.85rem;margin:.2rem 0 .8rem}
.legend .stay{display:inline-block;position:static;margin:0;line-height:1.3rem}
.calnav{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0 0 .8rem}
.calnav a{padding:.35rem .6rem;border:1px solid #2c5282;border-radius:6px;text-decoration:none;color:#2c5282}
.calnav form{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:0}
";

/// The calendar page: `?from=YYYY-MM-DD&nights=30|60`.
pub async fn page<S: Store + 'static>(rental: &Arc<Rental<S>>, session: &Session, query: &Query) -> Page {
    let view = match load(rental, query).await {
        Ok(view) => view,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let body = html! {
        style { (PreEscaped(CSS)) }
        (navigation(&view))
        (legend())
        div.cal #calendar style=(format!("--n:{}", view.nights)) {
            (head_row(&view))
            @for p in &view.properties { (row(&view, p)) }
        }
        (add_form(&view, session))
        (block_list(&view, session))
    };
    shell("Calendar", Some(Section::Calendar), Some(session), &body)
}

async fn load<S: Store + 'static>(rental: &Arc<Rental<S>>, query: &Query) -> Result<View, Problem> {
    let nights = match query.get("nights") {
        None | Some("30") => 30,
        Some("60") => 60,
        Some(_) => return Err(Problem::invalid_parameter("nights", "30 or 60")),
    };
    let from = query.date("from")?;
    blocking(rental, move |r| {
        let today = r.now().date_naive();
        let from = from.unwrap_or(today);
        let to = from.checked_add_days(Days::new(nights.into())).unwrap_or(NaiveDate::MAX);
        let properties = r.properties()?;
        let mut bookings = Vec::new();
        let mut after = None;
        loop {
            let q = BookingQuery {
                statuses: vec![Status::Pending, Status::Confirmed],
                from: Some(from),
                to: Some(to),
                after,
                limit: BookingQuery::MAX_LIMIT,
                ..BookingQuery::default()
            };
            let BookingPage { data, next } = r.bookings(&q)?;
            bookings.extend(data);
            match next {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        let mut blocks = Vec::new();
        for p in &properties {
            blocks.extend(r.calendars().blocks(p.slug.as_str(), Some(from), Some(to))?);
        }
        Ok(View { from, nights, today, properties, bookings, blocks })
    })
    .await
}

fn shifted(date: NaiveDate, days: i64) -> NaiveDate {
    let d = Days::new(days.unsigned_abs());
    let moved = if days < 0 { date.checked_sub_days(d) } else { date.checked_add_days(d) };
    moved.unwrap_or(date)
}

fn navigation(v: &View) -> Markup {
    let n = i64::from(v.nights);
    let link = |from: NaiveDate, nights: u32| format!("/admin/calendar?from={from}&nights={nights}");
    let other = if v.nights == 30 { 60 } else { 30 };
    html! {
        nav.calnav aria-label="Calendar range" {
            a #cal-prev href=(link(shifted(v.from, -n), v.nights)) { "← Previous" }
            a #cal-today href=(link(v.today, v.nights)) { "Today" }
            a #cal-next href=(link(shifted(v.from, n), v.nights)) { "Next →" }
            a href=(link(v.from, other)) { (other) " nights" }
            form method="get" action="/admin/calendar" {
                label.check for="cal-from" { "From" }
                input #cal-from type="date" name="from" value=(v.from);
                input type="hidden" name="nights" value=(v.nights);
                button.quiet type="submit" { "Show" }
            }
            span.muted { (v.from) " to " (shifted(v.from, n - 1)) }
        }
    }
}

fn legend() -> Markup {
    html! {
        div.legend {
            span.stay.confirmed.src-direct { span.src { "D" } "confirmed" }
            span.stay.pending.src-direct { span.src { "D" } "pending" }
            span.stay.confirmed.src-agent { span.src { "A" } "agent" }
            span.stay.confirmed.src-channel { span.src { "airbnb" } "channel" }
            span.stay.block { "blocked" }
            span.muted { "D = direct (API, admin, CLI, booking page), A = an agent; a channel by its feed's name." }
        }
    }
}

fn head_row(v: &View) -> Markup {
    html! {
        div.cal-row.cal-head {
            div.cal-name { "Property" }
            @for i in 0..v.nights {
                @let date = shifted(v.from, i64::from(i));
                (day_cell(v, date, i, true))
            }
        }
    }
}

fn day_cell(v: &View, date: NaiveDate, i: u32, label: bool) -> Markup {
    use chrono::Datelike;
    let weekend = matches!(date.weekday(), chrono::Weekday::Fri | chrono::Weekday::Sat);
    let mut class = String::from("cal-day");
    if weekend {
        class.push_str(" we");
    }
    if date == v.today {
        class.push_str(" today");
    }
    html! {
        div class=(class) style=(format!("grid-column:{}", i + 2)) data-date=[label.then_some(date)] {
            @if label { (date.format("%a")) br; (date.day()) }
        }
    }
}

/// The grid columns `[start, end)` of the nights `check_in..check_out` inside the view.
fn columns(v: &View, check_in: NaiveDate, check_out: NaiveDate) -> Option<(i64, i64)> {
    let first = (check_in - v.from).num_days().max(0);
    let end = (check_out - v.from).num_days().min(i64::from(v.nights));
    (first < end).then_some((first + 2, end + 2))
}

/// `direct`, `agent` or `channel`, and its mark.
fn source_kind(b: &Booking) -> (&'static str, String) {
    match b.source.as_str() {
        _ if b.is_channel_owned() => ("channel", b.source.as_str().to_owned()),
        "agent" => ("agent", "A".to_owned()),
        "api" | "admin" | "cli" | "page" => ("direct", "D".to_owned()),
        other => ("channel", other.to_owned()),
    }
}

fn row(v: &View, p: &Property) -> Markup {
    html! {
        div.cal-row data-slug=(p.slug) {
            div.cal-name title=(p.name) { a href=(format!("/admin/properties/{}/edit", p.slug)) { (p.name) } }
            @if let Some((start, _)) = columns(v, v.today, shifted(v.today, 1)) {
                div.cal-day.today style=(format!("grid-column:{start}")) {}
            }
            @for b in v.bookings.iter().filter(|b| b.property == p.slug) {
                @if let Some((start, end)) = columns(v, b.check_in(), b.check_out()) {
                    @let (kind, mark) = source_kind(b);
                    @let status = if b.status == Status::Confirmed { "confirmed" } else { "pending" };
                    a class=(format!("stay {status} src-{kind}")) href=(format!("/admin/bookings/{}", b.code))
                        style=(format!("grid-column:{start}/{end}")) data-code=(b.code)
                        title=(format!("{} · {} → {} · {} · {}", b.guest_name, b.check_in(), b.check_out(), b.status, b.source.as_str())) {
                        span.src { (mark) } (b.guest_name)
                    }
                }
            }
            @for blk in v.blocks.iter().filter(|x| x.property == p.slug) {
                @if let Some((start, end)) = columns(v, blk.stay.check_in(), blk.stay.check_out()) {
                    div.stay.block style=(format!("grid-column:{start}/{end}")) data-block=(blk.id)
                        title=(format!("Blocked {} → {} {}", blk.stay.check_in(), blk.stay.check_out(), blk.note)) {
                        (if blk.note.is_empty() { "blocked" } else { blk.note.as_str() })
                    }
                }
            }
        }
    }
}

fn add_form(v: &View, session: &Session) -> Markup {
    html! {
        section.card #add-block {
            h2 { "Block nights" }
            p.muted { "For an owner stay, maintenance or a closure. The end date is the morning after the last night." }
            form method="post" action="/admin/blocks" {
                (csrf_field(session))
                input type="hidden" name="back" value=(format!("/admin/calendar?from={}&nights={}", v.from, v.nights));
                div.grid2 {
                    div { label for="block-property" { "Property" }
                        select #block-property name="property" required {
                            @for p in &v.properties { option value=(p.slug) { (p.name) } }
                        } }
                    div { label for="block-start" { "First night" } input #block-start type="date" name="startDate" required; }
                    div { label for="block-end" { "End (check-out day)" } input #block-end type="date" name="endDate" required; }
                    div { label for="block-note" { "Note" } input #block-note type="text" name="note" maxlength="500"; }
                }
                p { button type="submit" { "Block these nights" } }
            }
        }
    }
}

fn block_list(v: &View, session: &Session) -> Markup {
    let back = format!("/admin/calendar?from={}&nights={}", v.from, v.nights);
    html! {
        section.card #blocks {
            h2 { "Blocks in view (" (v.blocks.len()) ")" }
            (blocks_table(&v.blocks, session, &back))
        }
    }
}

/// A table of blocks with a Remove button for the manual ones; `back` is where removing returns.
pub fn blocks_table(blocks: &[Block], session: &Session, back: &str) -> Markup {
    html! {
        @if blocks.is_empty() { p.muted { "No blocks." } } @else {
            div.table { table {
                thead { tr { th { "Property" } th { "Nights" } th { "Note" } th { "Source" } th {} } }
                tbody { @for b in blocks { tr data-block=(b.id) {
                    td { (b.property) }
                    td { (b.stay.check_in()) " → " (b.stay.check_out()) }
                    td { (b.note) }
                    td { (b.feed.as_ref().map_or("manual", |f| f.as_str())) }
                    td { @if b.feed.is_none() {
                        (button_form(session, &format!("/admin/blocks/{}/{}/remove?back={}", b.property, b.id, encode(back)),
                            "Remove", "danger", Some(&format!("Reopen {} to {}?", b.stay.check_in(), b.stay.check_out()))))
                    } }
                } } }
            } }
        }
    }
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Only paths inside the dashboard are followed back; anything else goes to the calendar.
fn back_to(candidate: &str) -> String {
    page::dashboard_path(candidate).unwrap_or("/admin/calendar").to_owned()
}

/// `POST /admin/blocks`: a block from the form.
pub async fn add<S: Store + 'static>(act: &Act<'_, S>) -> Page {
    let back = back_to(act.form.get("back"));
    let slug = act.form.get("property").to_owned();
    let dates = (rental_core::parse_date(act.form.get("startDate")), rental_core::parse_date(act.form.get("endDate")));
    let (Some(start_date), Some(end_date)) = dates else {
        return act
            .done::<()>(
                Err(Problem::from(rental_core::Error::invalid("startDate", "invalid_date", "give both dates"))),
                &back,
                |()| Flash::done(""),
            )
            .await;
    };
    let note = Some(act.form.get("note").to_owned()).filter(|n| !n.trim().is_empty());
    let req = NewBlock { start_date, end_date, note };
    let result = blocking(act.rental(), move |r| r.calendars().create_block(&slug, &req)).await;
    act.done(result, &back, |b| {
        Flash::done(format!("Blocked {} from {} to {}.", b.property, b.stay.check_in(), b.stay.check_out()))
    })
    .await
}

/// `POST /admin/blocks/{slug}/{id}/remove?back=...`.
pub async fn remove<S: Store + 'static>(act: &Act<'_, S>, slug: &str, id: &str, back: Option<&str>) -> Page {
    let back = back_to(back.unwrap_or("/admin/calendar"));
    let (slug, id) = (slug.to_owned(), id.to_owned());
    let result = blocking(act.rental(), move |r| r.calendars().remove_block(&slug, &id)).await;
    act.done(result, &back, |b| Flash::done(format!("Reopened {} to {}.", b.stay.check_in(), b.stay.check_out()))).await
}
