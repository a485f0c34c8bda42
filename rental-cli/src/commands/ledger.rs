//! `rental bookings payments CODE`: a booking's ledger (docs/API.md,
//! Payments) as a table on the property's clock, or as the API's JSON.

use rental_core::payments::PaymentView;
use serde::{Deserialize, Serialize};

use crate::commands::Printed;
use crate::output::{self, Align, Table};

/// `bookings payments`' help.
pub const HELP: &str = "Every movement of the booking's money: installments by number (scheduled,
due, authorized, succeeded, failed, canceled), the deposit (held, released,
claimed) and refunds, with amounts in the booking's currency, when each falls
due and when it moved, on the property's clock.

Examples:
  rental bookings payments BK-7QX2MF
  rental bookings payments BK-7QX2MF --json";

/// `bookings refund`'s help.
pub const REFUND_HELP: &str = "A goodwill refund, at most what was paid and not refunded, issued through
the server's payment provider from the booking's payments; prints the refund
records made (succeeded, or due while the provider does not answer: the
server retries them). A cancellation refunds by its policy on its own.

Examples:
  rental bookings refund BK-7QX2MF 5000 --reason \"the hot water failed\" --url http://127.0.0.1:8080 --api-key rk_...";

/// A booking's payments as the API writes them.
#[derive(Debug, Serialize, Deserialize)]
pub struct PaymentsJson {
    /// Installments by number, then the deposit, then refunds.
    pub data: Vec<PaymentView>,
}

/// The payments as a table, their times on the property's clock (`zone`), or as the API's JSON.
pub fn payments(list: &PaymentsJson, zone: rental_core::Tz, json: bool) -> Printed {
    if json {
        return output::json(list).into();
    }
    let mut table = Table::new(&[
        ("KIND", Align::Left),
        ("#", Align::Right),
        ("AMOUNT", Align::Right),
        ("STATUS", Align::Left),
        ("DUE", Align::Left),
        ("AT", Align::Left),
        ("PROVIDER", Align::Left),
        ("ERROR", Align::Left),
    ]);
    let at = |t: Option<rental_core::DateTime<rental_core::Utc>>| {
        t.map_or_else(|| "-".to_owned(), |t| rental_core::local_moment(t, zone))
    };
    for p in &list.data {
        table.row(vec![
            serde_json::to_value(p.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            p.number.to_string(),
            output::money(p.amount, &p.currency),
            serde_json::to_value(p.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            at(p.due_at),
            at(p.at),
            p.provider_ref.clone().unwrap_or_else(|| "-".to_owned()),
            p.error.as_deref().map_or_else(|| "-".to_owned(), |e| output::visible(e).into_owned()),
        ]);
    }
    let note = list.data.is_empty().then(|| "no payments: a channel's booking, or one made before payments".to_owned());
    Printed { data: table.render(), note }
}
