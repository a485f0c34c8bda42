//! The page's calendar as HTML: the months' tables, their day links (which pick
//! a check-in or a check-out day) and prices, the month links and the legend.

use std::fmt::Write as _;

use chrono::Datelike as _;
use chrono::NaiveDate;
use maud::{Markup, PreEscaped, Render, html};
use rental_core::property::Cents;
use rental_core::{Locale, Property};

use super::{View, encode};
use crate::book::calendar::{Month, Pick, Why};
use crate::book::calendar_words;
use crate::book::page::{LongDay, short_money};
use crate::lang::words;

pub(super) fn calendar(v: &View<'_>) -> Markup {
    let keep = |first: NaiveDate| {
        let mut params = vec![("month", first.format("%Y-%m").to_string())];
        for (name, value) in [("checkIn", &v.asked.check_in), ("checkOut", &v.asked.check_out)] {
            if !value.is_empty() {
                params.push((name, value.clone()));
            }
        }
        params.push(("guests", v.guests().to_string()));
        params
    };
    let links = DayLinks::new(v);
    let w = words(v.lang);
    let [free, closed, taken, chosen] = w.legend;
    html! {
        nav.nav aria-label=(w.months) {
            @if let Some(prev) = v.prev { a data-nav="prev" href=(v.href(&keep(prev))) { (w.earlier) } } @else { span {} }
            @if let Some(next) = v.next { a data-nav="next" href=(v.href(&keep(next))) { (w.later) } }
        }
        div.months {
            @for m in v.months { (month(&links, m, v.property, v.lang)) }
        }
        p.legend aria-hidden="true" {
            span.l-free { (free) } span.l-closed { (closed) }
            span.l-taken { (taken) } span.l-chosen { (chosen) }
        }
        (calendar_words::rules(v.property, v.lang))
    }
}

/// What the day links and prices of one page share, escaped once: a page has
/// about 60 days, and building each link from its parameters (with chrono's
/// formats for its dates) was a fifth of a page view's CPU.
struct DayLinks {
    /// `/book/{slug}?checkIn=`: a link that picks its day as check-in.
    check_in: String,
    /// `/book/{slug}?checkIn={asked}&checkOut=`: a link that ends the picked stay on its day.
    check_out: String,
    /// `&guests=…&month=…` (and `&embed=…`) after either.
    tail: String,
    /// Each distinct nightly price of the page, written for a cell.
    prices: Vec<(Cents, String)>,
}

impl DayLinks {
    fn new(v: &View<'_>) -> Self {
        let escaped = |raw: &str| {
            let mut out = String::with_capacity(raw.len() + 16);
            let _ = maud::Escaper::new(&mut out).write_str(raw);
            out
        };
        let base = format!("/book/{}?checkIn=", v.property.slug);
        let check_out = format!("{base}{}&checkOut=", encode(&v.asked.check_in));
        let mut tail = format!("&guests={}", v.guests());
        if let Some(first) = v.months.first() {
            let _ = write!(tail, "&month={}-{:02}", first.first.year(), first.first.month());
        }
        if let Some(embed) = v.embed {
            let _ = write!(tail, "&embed={}", encode(embed));
        }
        let mut prices: Vec<(Cents, String)> = Vec::new();
        for d in v.months.iter().flat_map(|m| m.weeks.iter().flatten().flatten()) {
            if !prices.iter().any(|(cents, _)| *cents == d.price) {
                prices.push((d.price, escaped(&short_money(v.lang, d.price, &v.property.currency))));
            }
        }
        DayLinks { check_in: escaped(&base), check_out: escaped(&check_out), tail: escaped(&tail), prices }
    }

    /// A cell's price, escaped.
    fn price(&self, cents: Cents) -> PreEscaped<&str> {
        PreEscaped(self.prices.iter().find(|(c, _)| *c == cents).map_or("", |(_, text)| text.as_str()))
    }
}

/// The link of a day: one of [`DayLinks`]'s beginnings, the day, the tail.
struct DayHref<'a>(&'a str, NaiveDate, &'a str);

impl Render for DayHref<'_> {
    fn render_to(&self, out: &mut String) {
        let _ = write!(out, "{}{}{}", self.0, self.1, self.2);
    }
}

/// A month's table; each day is written into it directly (no markup of its own to copy).
fn month(links: &DayLinks, m: &Month, p: &Property, lang: Locale) -> Markup {
    let w = words(lang);
    let free_no_check_in = w.legend[1];
    html! {
        table.cal {
            caption { (lang.month_year(m.first)) }
            thead { tr { @for (i, short) in w.weekday_letters.iter().enumerate() { th scope="col" { abbr title=(lang.weekday(i)) { (short) } } } } }
            tbody {
                @for week in &m.weeks {
                    tr { @for cell in week { td { @if let Some(d) = cell {
                        @let (date, price) = (d.date, links.price(d.price));
                        @match d.pick {
                            Pick::CheckIn => {
                                a class=(if d.chosen { "day chosen" } else { "day" }) data-date=(date)
                                  href=(DayHref(&links.check_in, date, &links.tail))
                                  title=[d.why.map(|why| calendar_words::why(why, p, lang))]
                                { (date.day()) span.sr { ", " (LongDay(date, lang)) ", " (w.sr_check_in) @if let Some(why) = d.why { ", " (calendar_words::why(why, p, lang)) } } small { (price) } }
                            }
                            Pick::CheckOut => {
                                a class=(if d.chosen { "day chosen" } else { "day" }) data-date=(date)
                                  href=(DayHref(&links.check_out, date, &links.tail))
                                { (date.day()) span.sr { ", " (LongDay(date, lang)) ", " (w.sr_check_out) } small { (price) } }
                            }
                            Pick::None if d.free || d.why == Some(Why::Preparation) => {
                                @let why = d.why.map(|why| calendar_words::why(why, p, lang));
                                span class=(if d.chosen { "day closed chosen" } else { "day closed" }) data-day=(date) title=[why.as_deref()]
                                { (date.day()) span.sr { ", " (LongDay(date, lang)) ", " (why.as_deref().unwrap_or(free_no_check_in)) } small { (price) } }
                            }
                            Pick::None if d.past => {
                                span class="day past" data-day=(date) { (date.day()) span.sr { ", " (LongDay(date, lang)) ", " (w.sr_past) } }
                            }
                            Pick::None => {
                                span class=(if d.chosen { "day taken chosen" } else { "day taken" }) data-day=(date)
                                { (date.day()) span.sr { ", " (LongDay(date, lang)) ", " (w.sr_taken) } small { (price) } }
                            }
                        }
                    } } } }
                }
            }
        }
    }
}
