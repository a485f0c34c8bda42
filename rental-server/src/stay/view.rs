//! The stay page's `main`: the stay, its status and what comes next, in the
//! booking page's look, phone first. Every value a guest or host typed is
//! escaped by maud.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::{Booking, Property, Status};

use rental_core::access_gate;

use super::{access, cancel, guide};
use crate::lang::words;

/// What the page shows besides the booking and its property.
#[derive(Debug, Default)]
pub struct Parts {
    /// The online check-in's section, when the page shows one.
    pub check_in: Option<Markup>,
    /// What the access gate needs beyond the booking: the provider, the deposit.
    pub conditions: access_gate::Conditions,
    /// The sums of the booking's ledger; `None` without one.
    pub totals: Option<rental_core::payments::Totals>,
    /// The button that pays what is due now by card, when it can be paid here.
    pub pay_start: Option<Markup>,
    /// What cancelling now would give back.
    pub refund: rental_core::payments::refund::RefundPreview,
}

/// The page of `b` at `p` at `now`; `link` is the page's own path.
pub fn render(b: &Booking, p: &Property, now: DateTime<Utc>, link: &str, parts: &Parts) -> Markup {
    let property = Some(p);
    let check_in = parts.check_in.as_ref();
    let gate = property.map(|p| access_gate::check(b, p, now, parts.conditions));
    let review = format!("{link}/cancel");
    let (l, w) = (b.locale, words(b.locale));
    let (arrive, leave) = match property {
        Some(p) => (
            (w.from_time)(&l.time(p.stay_rules.check_in_time, p.timezone)),
            (w.by_time)(&l.time(p.stay_rules.check_out_time, p.timezone)),
        ),
        None => (String::new(), String::new()),
    };
    let [_, name, nights, total] = w.where_name_nights_total;
    html! {
        main.page #stay {
            h1 { ((w.stay_at)(&b.property_name)) }
            p { span.status.(b.status) #status { (status_words(b)) } }
            section.box aria-labelledby="stay-title" {
                h2 #stay-title { (w.your_booking) }
                dl.facts {
                    dt { (w.booking_code) } dd #code { (b.code) }
                    dt { (name) } dd { (b.guest_name) }
                    dt { (w.check_in) } dd #check-in { (l.short_date(b.check_in())) (arrive) }
                    dt { (w.check_out) } dd #check-out { (l.short_date(b.check_out())) (leave) }
                    dt { (nights) } dd { (b.nights) }
                    dt { (w.guests) } dd #guests { (b.guests) }
                    dt { (total) } dd #total { (l.money(b.total, &b.currency)) }
                }
            }
            @if let (Some(p), Some(gate)) = (property, &gate) {
                @if b.status != Status::Cancelled { (access::section(b, p, gate)) }
            }
            @if let Some(pay) = super::pay::section(b, p, parts.totals.as_ref(), now, parts.pay_start.as_ref()) { (pay) }
            @if let Some(check_in) = check_in { (check_in) }
            @if let Some(p) = property {
                @if b.status == Status::Confirmed && !p.access.stay_page.address.trim().is_empty() {
                    section.box aria-labelledby="address-title" {
                        h2 #address-title { (w.address) }
                        div #address { (guide::render(&p.access.stay_page.address)) }
                    }
                }
                (cancel::section(b, cancel::offer(b, p, now, parts.refund), &review))
                @if !p.access.stay_page.guide.trim().is_empty() {
                    section.box.guide aria-labelledby="guide-title" {
                        h2 #guide-title { (w.house_guide) }
                        div #guide { (guide::render(&p.access.stay_page.guide)) }
                    }
                }
            }
        }
    }
}

/// The status in a guest's words and language.
fn status_words(b: &Booking) -> &'static str {
    let [pending, confirmed, cancelled] = words(b.locale).statuses;
    match b.status {
        Status::Pending => pending,
        Status::Confirmed => confirmed,
        Status::Cancelled => cancelled,
    }
}
