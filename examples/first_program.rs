//! The exercise of issue 31, written from `cargo doc` and the README only: a
//! program that quotes, books, confirms, reads the outbox, and mounts the API
//! in its own hyper server under `/shop`, then asks itself for the booking
//! over HTTP. It ends by itself; run with
//! `cargo run -p rental-examples --example first_program`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::{Service, service_fn};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rental_core::prelude::*;
use rental_server::{AppState, Jobs, RentalService, ServerConfig};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The engine over a store; a property of my own.
    let rental = Arc::new(Rental::new(MemoryStore::new()));
    let cabin = Property::builder("lake-cabin")
        .name("Lake Cabin")
        .timezone(Tz::America__Toronto)
        .pricing(Pricing::new(14_000).max_guests(4).cleaning_fee(5_000))
        .build()?;
    rental.import_properties(&[cabin])?;

    // Quote, book (awaiting, as an async program does), confirm.
    let check_in = chrono::Utc::now().date_naive() + chrono::Days::new(60);
    let check_out = check_in + chrono::Days::new(3);
    let quote = rental.quote(&QuoteRequest {
        property: "lake-cabin".parse()?,
        check_in,
        check_out,
        guests: 2,
        children: 0,
        pets: 0,
        promo_code: None,
    })?;
    assert!(quote.available, "{:?}", quote.problems);
    println!("quote: {} nights, {} cents", quote.nights, quote.total);
    let request = NewBooking {
        property: quote.property.clone(),
        check_in,
        check_out,
        guest_name: "Grace Hopper".into(),
        guest_email: "grace@example.com".into(),
        guests: 2,
        notes: None,
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    };
    let booking = rental.create_booking_async(&request, None).await?.booking;
    let booking = rental.update_booking(booking.code.as_str(), &Action::Confirm)?;
    println!("booking {} is {}", booking.code, booking.status);

    // The outbox: what webhooks would deliver.
    for event in rental.admin().events_after(0, 10)? {
        println!("outbox #{}: {} at {}", event.seq, event.event.event, event.event.timestamp);
    }

    // Mount the API under /shop beside a route of my own.
    let key = rental.admin().create_key("first-program", &[Scope::Read])?.secret;
    let state = AppState::new(Arc::clone(&rental), &ServerConfig::default());
    let jobs = Jobs::start(&state).await?;
    let shop = RentalService::new(state).under("/shop");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((stream, peer)) = listener.accept().await {
            let shop = shop.for_client(peer.ip());
            let app = service_fn(move |req: Request<Incoming>| {
                let shop = shop.clone();
                async move {
                    if req.uri().path().starts_with("/shop/") {
                        return shop.call(req).await;
                    }
                    let mut own = Response::new(Full::new(Bytes::from_static(b"my own page")));
                    *own.status_mut() = if req.uri().path() == "/" { StatusCode::OK } else { StatusCode::NOT_FOUND };
                    Ok::<_, Infallible>(own)
                }
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), app));
        }
    });

    // Ask the mounted API for the booking.
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let asked = Request::get(format!("http://{addr}/shop/api/v1/bookings/{}", booking.code))
        .header("authorization", format!("Bearer {key}"))
        .body(Full::default())?;
    let answer = client.request(asked).await?;
    let status = answer.status();
    let body = answer.into_body().collect().await?.to_bytes();
    println!("GET /shop/api/v1/bookings/{}: {status} {}", booking.code, String::from_utf8_lossy(&body));
    assert_eq!(status, StatusCode::OK);
    jobs.stop(Duration::from_secs(2)).await;
    Ok(())
}
