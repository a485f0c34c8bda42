//! Mounts the whole rental interface (the JSON API, the admin pages, the
//! booking page and the calendars) under `/rental` in a program's own hyper
//! server, beside a route of its own. Run with
//! `cargo run -p rental-examples --example mount`, then open
//! <http://127.0.0.1:3000/> and <http://127.0.0.1:3000/rental/book/sea-view>,
//! or call the API with the key it prints. Ctrl-C stops it.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::{Service, service_fn};
use hyper_util::rt::TokioIo;
use rental_core::keys::Scope;
use rental_core::{MemoryStore, Rental, demo};
use rental_server::{AppState, Jobs, RentalService, ServerConfig};
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The engine, with the demo properties and an API key to call it with.
    let rental = Arc::new(Rental::new(MemoryStore::new()));
    rental.import_properties(&demo::properties())?;
    rental.admin().set_admin_password("correct horse battery staple")?;
    let key = rental.admin().create_key("example", &[Scope::Read, Scope::Write])?.secret;

    // The service to mount, and the background work beside it.
    let state = AppState::new(rental, &ServerConfig::default());
    let jobs = Jobs::start(&state).await?;
    let rental_service = RentalService::new(state).under("/rental");

    let listener = TcpListener::bind("127.0.0.1:3000").await?;
    println!("http://127.0.0.1:3000/ is this program's; http://127.0.0.1:3000/rental/... is the engine's");
    println!("try: curl -H 'Authorization: Bearer {key}' http://127.0.0.1:3000/rental/api/v1/properties");
    println!("admin: http://127.0.0.1:3000/rental/admin (password: correct horse battery staple)");
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => accepted?,
            _ = tokio::signal::ctrl_c() => break,
        };
        // One service per connection, so the login throttle knows the client.
        let rental = rental_service.for_client(peer.ip());
        let app = service_fn(move |req: Request<Incoming>| {
            let rental = rental.clone();
            async move {
                if req.uri().path().starts_with("/rental/") {
                    return rental.call(req).await;
                }
                Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(
                    b"Hello from the program's own route\n",
                ))))
            }
        });
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), app);
            if let Err(e) = connection.await {
                eprintln!("connection from {peer}: {e}");
            }
        });
    }
    jobs.stop(Duration::from_secs(5)).await;
    Ok(())
}
