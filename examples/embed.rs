//! Embeds the booking engine in a program: a durable redb store in a
//! temporary directory, the demo properties, a quote, a booking, and the
//! occupancy summary. Run with `cargo run -p rental-examples --example embed`.

use rental_core::{Action, NewBooking, QuoteRequest, RedbStore, Rental, demo};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let rental = Rental::new(RedbStore::open_dir(dir.path())?);
    rental.import_properties(&demo::properties())?;

    let check_in = chrono::Utc::now().date_naive() + chrono::Days::new(30);
    let check_out = check_in + chrono::Days::new(7);
    let quote = rental.quote(&QuoteRequest { property: "sea-view".into(), check_in, check_out, guests: 3 })?;
    println!(
        "{} nights at {}: total {} cents, available: {}",
        quote.nights, quote.property, quote.total, quote.available
    );

    let request = NewBooking {
        property: "sea-view".into(),
        check_in,
        check_out,
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        notes: Some("arriving by train".into()),
        source: None,
    };
    let booking = rental.create_booking(&request, None)?.booking;
    println!("created {} ({}, {})", booking.code, booking.status, booking.payment_status);

    let booking = rental.update_booking(booking.code.as_str(), &Action::Confirm)?;
    println!("confirmed {} ({}, {})", booking.code, booking.status, booking.payment_status);

    match rental.create_booking(&request, None) {
        Err(rental_core::Error::DatesUnavailable { dates }) => {
            println!("a second booking is refused: {} nights taken", dates.len());
        }
        other => println!("unexpected: {other:?}"),
    }

    for event in rental.events_after(0, 100)? {
        println!("outbox #{}: {}", event.seq, event.event.event);
    }
    let summary = rental.summary()?;
    println!(
        "summary for {}: {} properties, {} pending",
        summary.date, summary.totals.properties, summary.totals.pending_bookings
    );
    Ok(())
}
