//! How `rental bookings` prints: the list's table, one booking's fields, its
//! messages, and the one line after confirm, cancel or change (or the API's JSON).

use rental_core::Booking;
use rental_core::message::MessageView;
use rental_core::words::count;
use serde::{Deserialize, Serialize};

use super::PageJson;
use crate::commands::Printed;
use crate::output::{self, Align, Table};

pub(super) fn list(page: &PageJson, json: bool) -> Printed {
    if json {
        return output::json(page).into();
    }
    let note = page
        .next_cursor
        .as_ref()
        .map(|c| format!("more bookings: rental bookings list --cursor {c} (with the same filters)"));
    Printed { data: table(&page.data), note }
}

pub(super) fn table(bookings: &[Booking]) -> String {
    let mut table = Table::new(&[
        ("CODE", Align::Left),
        ("PROPERTY", Align::Left),
        ("CHECK-IN", Align::Left),
        ("CHECK-OUT", Align::Left),
        ("NIGHTS", Align::Right),
        ("GUESTS", Align::Right),
        ("GUEST", Align::Left),
        ("STATUS", Align::Left),
        ("PAYMENT", Align::Left),
        ("TOTAL", Align::Right),
        ("SOURCE", Align::Left),
    ]);
    for b in bookings {
        table.row(vec![
            b.code.to_string(),
            b.property.to_string(),
            output::day(b.check_in()),
            output::day(b.check_out()),
            b.nights.to_string(),
            b.guests.to_string(),
            b.guest_name.clone(),
            b.status.to_string(),
            b.payment_status.to_string(),
            output::money(b.total, &b.currency),
            b.source.to_string(),
        ]);
    }
    table.render()
}

/// A booking as `show` prints it: the API's body, `stayUrl` included.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Shown {
    #[serde(flatten)]
    pub(super) booking: Booking,
    /// The guest's stay page; absent from a server that does not give it to this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stay_url: Option<String>,
}

pub(super) fn show(shown: &Shown, json: bool) -> String {
    if json {
        return output::json(shown);
    }
    let b = &shown.booking;
    let guest =
        if b.guest_email.is_empty() { b.guest_name.clone() } else { format!("{} <{}>", b.guest_name, b.guest_email) };
    let mut fields = vec![
        ("Code", b.code.to_string()),
        ("Property", format!("{} ({})", b.property_name, b.property)),
        ("Guest", guest),
        ("Guests", b.guests.to_string()),
        ("Stay", format!("{} to {}, {} nights", output::day(b.check_in()), output::day(b.check_out()), b.nights)),
        ("Status", b.status.to_string()),
        ("Payment", b.payment_status.to_string()),
        ("Total", format!("{} ({})", output::money(b.total, &b.currency), b.currency)),
        ("Source", b.source.to_string()),
        ("Created", output::when(b.created_at)),
        ("Updated", output::when(b.updated_at)),
    ];
    if let Some(by) = b.cancelled_by {
        fields.push(("Cancelled by", by.to_string()));
    }
    if let Some(reason) = &b.cancel_reason {
        fields.push(("Reason", reason.clone()));
    }
    for note in &b.notes {
        fields.push(("Note", format!("{} ({})", note.text, output::when(note.at))));
    }
    if let Some(url) = &shown.stay_url {
        fields.push(("Stay page", url.clone()));
    }
    output::fields(&fields)
}

/// A booking's messages as the API writes them.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct MessagesJson {
    pub(super) data: Vec<MessageView>,
}

/// The messages as a table, their times on the property's clock (`zone`), or as the API's JSON.
pub(super) fn messages(list: &MessagesJson, zone: rental_core::Tz, json: bool) -> Printed {
    if json {
        return output::json(list).into();
    }
    let mut table = Table::new(&[
        ("KIND", Align::Left),
        ("TO", Align::Left),
        ("STATUS", Align::Left),
        ("DUE", Align::Left),
        ("SENT", Align::Left),
        ("ATTEMPTS", Align::Right),
        ("ERROR", Align::Left),
    ]);
    for m in &list.data {
        table.row(vec![
            m.kind.to_string(),
            m.to.clone(),
            m.status.to_string(),
            rental_core::local_moment(m.due_at, zone),
            m.sent_at.map_or_else(|| "-".to_owned(), |t| rental_core::local_moment(t, zone)),
            m.attempts.to_string(),
            m.error.clone().unwrap_or_else(|| "-".to_owned()),
        ]);
    }
    let note =
        list.data.is_empty().then(|| "no messages: the booking has no guest e-mail, or none is due yet".to_owned());
    Printed { data: table.render(), note }
}

pub(super) fn acted(b: &Booking, json: bool) -> Printed {
    if json {
        return output::json(b).into();
    }
    let by = b.cancelled_by.map(|by| format!(" by {by}")).unwrap_or_default();
    format!("{}: {}{by}, payment {}\n", b.code, b.status, b.payment_status).into()
}

pub(super) fn changed(b: &Booking, json: bool) -> Printed {
    if json {
        return output::json(b).into();
    }
    let stay = format!("{} to {}", output::day(b.check_in()), output::day(b.check_out()));
    let total = output::money(b.total, &b.currency);
    format!(
        "{}: {stay}, {}, {}, total {total} ({})\n",
        b.code,
        count(b.nights, "night"),
        count(b.guests, "guest"),
        b.currency
    )
    .into()
}
