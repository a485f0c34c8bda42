//! A webhook receiver: an HTTP server that takes the events `rental` POSTs
//! and checks that they came from it. Register it and run it with
//!
//! ```text
//! rental webhook add --url http://127.0.0.1:9000/ --secret "$SECRET"
//! cargo run -p rental-examples --example webhook_receiver -- 127.0.0.1:9000 "$SECRET"
//! ```
//!
//! (a server delivering to a loopback address needs `allowPrivateTargets = true`).
//! It prints one line per delivery: event, delivery id, valid or why not, and
//! the booking code. What every receiver must do:
//!
//! - Verify the signature over the raw body bytes, before parsing them: JSON
//!   parsed and written again is not byte for byte what was signed. This example
//!   checks the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
//!   `webhook-signature`), which also refuse a delivery replayed more than 5
//!   minutes later; `rental_core::webhook::verify` checks `X-SVC-Signature` instead.
//!   Answer 401 (or any non-2xx) when it does not match, and ignore the body.
//! - During a secret rotation the server signs with the old and the new secret
//!   for 24 h: a receiver holding either one accepts every delivery.
//! - Answer 2xx quickly. A delivery that takes longer than 10 s counts as
//!   failed and is sent again; queue slow work and do it after answering.
//! - Expect repeats. A retry carries the same `X-SVC-Delivery` id, so a
//!   receiver that acts on events records the ids it has handled and skips
//!   one it has seen (this example only prints).

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use chrono::Utc;
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rental_core::webhook::{StandardHeaders, verify_standard};
use tokio::net::TcpListener;

/// Bodies are small JSON documents; anything bigger is not from `rental`.
const MAX_BODY: usize = 1 << 20;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(addr), Some(secret)) = (args.next(), args.next()) else {
        eprintln!("usage: webhook_receiver ADDR SECRET   (such as 127.0.0.1:9000 whsec_...)");
        std::process::exit(2);
    };
    let secret: Arc<str> = secret.into();
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("receiving webhooks on http://{}/", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let secret = Arc::clone(&secret);
        tokio::spawn(async move {
            let service = service_fn(move |request| receive(Arc::clone(&secret), request));
            if let Err(e) = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await {
                eprintln!("connection error: {e}");
            }
        });
    }
}

/// Handles one delivery: 204 when its signature is valid, 401 when not.
async fn receive(secret: Arc<str>, request: Request<Incoming>) -> Result<Response<Empty<Bytes>>, Infallible> {
    if request.method() != Method::POST {
        return Ok(reply(StatusCode::METHOD_NOT_ALLOWED));
    }
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(reply(StatusCode::BAD_REQUEST)), // too large, or the connection broke
    };
    let header = |name| header(&parts.headers, name);
    let standard = StandardHeaders {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
    };
    let checked = verify_standard(&secret, &body, &standard, Utc::now());
    let valid = checked.is_ok();
    // Only a verified body is worth parsing.
    let code = if valid { booking_code(&body) } else { None };
    let verdict = checked.map_or_else(|e| format!("invalid ({e})"), |()| "valid".to_owned());
    let (event, delivery) = (header("x-svc-event"), header("x-svc-delivery"));
    println!("{event} {delivery} {verdict} {}", code.as_deref().unwrap_or("-"));
    Ok(reply(if valid { StatusCode::NO_CONTENT } else { StatusCode::UNAUTHORIZED }))
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("-")
}

/// `data.code` of a booking event; calendar events have none.
fn booking_code(body: &[u8]) -> Option<String> {
    let event: serde_json::Value = serde_json::from_slice(body).ok()?;
    event["data"]["code"].as_str().map(str::to_owned)
}

fn reply(status: StatusCode) -> Response<Empty<Bytes>> {
    let mut response = Response::new(Empty::new());
    *response.status_mut() = status;
    response
}
