//! A booking's payments on its admin page (docs/API.md, Payments): what was
//! paid, refunded and is still due, and every movement of its ledger.

use maud::{Markup, html};
use rental_core::payments::{PaymentRecord, PaymentView};
use rental_core::{Booking, format_amount, local_moment};

/// The ledger card: the booking's sums, then one row per movement, times on
/// the property's clock (`zone`).
pub fn card(b: &Booking, records: &[PaymentRecord], zone: rental_core::Tz) -> Markup {
    let money = |amount: i64| format_amount(amount, &b.currency);
    let at = |t: Option<rental_core::DateTime<rental_core::Utc>>| t.map(|t| local_moment(t, zone)).unwrap_or_default();
    let name = |v: serde_json::Result<serde_json::Value>| {
        v.ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    };
    html! {
        section.card #payments {
            h2 { "Payments (" (records.len()) ")" }
            p {
                "Paid " strong #amount-paid { (money(b.money.amount_paid)) }
                ", refunded " strong #amount-refunded { (money(b.money.amount_refunded)) }
                ", still due " strong #balance-due { (money(b.money.balance_due)) }
                @if let Some(next) = b.money.next_payment_at { ", next on " (local_moment(next, zone)) }
                "."
            }
            @if records.is_empty() { p.muted { "No payments: a channel's booking, or one made before payments." } } @else {
                div.table { table {
                    thead { tr { th { "Kind" } th { "#" } th { "Amount" } th { "Status" } th { "Due" } th { "Moved" } th { "Provider" } th { "Error" } } }
                    tbody { @for r in records.iter().map(PaymentView::from) {
                        tr data-payment=(r.id) {
                            td { (name(serde_json::to_value(r.kind))) }
                            td { (r.number) }
                            td { (money(r.amount)) }
                            td { span.badge { (name(serde_json::to_value(r.status))) } }
                            td { (at(r.due_at)) }
                            td { (at(r.at)) }
                            td { (r.provider_ref.as_deref().unwrap_or("")) }
                            td { (r.error.as_deref().unwrap_or("")) }
                        }
                    } }
                } }
            }
        }
    }
}
