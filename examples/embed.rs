//! Embeds the booking engine in a program: a durable redb store in a
//! temporary directory, a property of its own beside the demo ones, a quote,
//! a booking, its confirmation, the outbox and the occupancy summary. Run
//! with `cargo run -p rental-examples --example embed`.

use rental_core::prelude::*;
use rental_core::{Error, demo};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let rental = Rental::new(RedbStore::open_dir(dir.path())?);
    let loft = Property::builder("river-loft")
        .name("River Loft")
        .timezone(Tz::Europe__Paris)
        .pricing(Pricing::new(12_000).max_guests(3).cleaning_fee(4_500))
        .build()?;
    let mut properties = demo::properties();
    properties.push(loft);
    rental.import_properties(&properties)?;

    let check_in = chrono::Utc::now().date_naive() + chrono::Days::new(30);
    let check_out = check_in + chrono::Days::new(7);
    let property: Slug = "sea-view".parse()?;
    let quote = rental.quote(&QuoteRequest {
        property: property.clone(),
        check_in,
        check_out,
        guests: 3,
        children: 0,
        pets: 0,
        promo_code: None,
    })?;
    println!(
        "{} nights at {}: total {} cents, available: {}",
        quote.nights, quote.property, quote.total, quote.available
    );
    for problem in &quote.problems {
        println!("  cannot book: {problem}");
    }

    let request = NewBooking {
        property,
        check_in,
        check_out,
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        notes: Some("arriving by train".into()),
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    };
    let booking = rental.create_booking(&request, None)?.booking;
    println!("created {} ({}, {})", booking.code, booking.status, booking.payment_status);

    let booking = rental.update_booking(booking.code.as_str(), &Action::Confirm)?;
    println!("confirmed {} ({}, {})", booking.code, booking.status, booking.payment_status);

    match rental.create_booking(&request, None) {
        Err(Error::DatesUnavailable { dates }) => {
            println!("a second booking is refused: {} nights taken", dates.len());
        }
        other => println!("unexpected: {other:?}"),
    }

    for event in rental.admin().events_after(0, 100)? {
        println!("outbox #{}: {}", event.seq, event.event.event);
    }
    let summary = rental.summary()?;
    println!(
        "summary for {}: {} properties, {} pending",
        summary.date, summary.totals.properties, summary.totals.pending_bookings
    );
    Ok(())
}
