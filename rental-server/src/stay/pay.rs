//! The stay page's payment section (docs/API.md section 24): what was paid,
//! what is still due and when the next payment falls, summed from the
//! booking's ledger as the page reads it, times on the property's clock.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::payments::Totals;
use rental_core::{Booking, PaymentStatus, Property, Status};

use super::access::moment;
use crate::lang::words;

/// The section for `b` whose ledger sums to `t`, or nothing for a booking
/// paid on its channel (whose money the server never sees), one without a
/// ledger (made before payments), or cancelled with nothing paid.
pub fn section(
    b: &Booking,
    p: &Property,
    t: Option<&Totals>,
    now: DateTime<Utc>,
    start: Option<&Markup>,
) -> Option<Markup> {
    let t = t?;
    if b.payment_status == PaymentStatus::External || b.is_channel_owned() {
        return None;
    }
    if b.status == Status::Cancelled && t.paid == 0 {
        return None;
    }
    let (lang, w) = (b.locale, words(b.locale));
    let money = |amount: i64| lang.money(amount, &b.currency);
    let [payment, paid, refunded, due, next_payment, due_now] = w.payment_labels;
    Some(html! {
        section.box #payment aria-labelledby="payment-title" {
            h2 #payment-title { (payment) }
            dl.facts {
                dt { (paid) } dd #amount-paid { (money(t.paid)) }
                @if t.refunded > 0 { dt { (refunded) } dd #amount-refunded { (money(t.refunded)) } }
                dt { (due) } dd #balance-due { (money(t.due)) }
                @match t.next_payment_at {
                    Some(next) if next <= now => { dt { (next_payment) } dd #next-payment { (due_now) } }
                    Some(next) => { dt { (next_payment) } dd #next-payment { (moment(next, p, lang)) } }
                    None => {}
                }
            }
            @if let Some(start) = start { (start) }
        }
    })
}
