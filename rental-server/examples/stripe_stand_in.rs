//! The payments load run's provider (benches/payments.sh): an in-memory stand-in for the
//! Stripe calls the server makes while a guest pays, answering at once, so that what the run
//! measures is the server's own time; the stand-in's own time is measured apart.
//!
//! `cargo run --release -p rental-server --example stripe_stand_in -- 127.0.0.1:18082`
//!
//! It keeps customers, setup intents and payment intents in one map: a setup intent waits for
//! a card until `POST /v1/setup_intents/{id}/confirm` (what Stripe.js does in the guest's
//! browser), or until `POST /_confirm_all` confirms every waiting one for the run; a payment
//! intent is held (`capture_method=manual`) or succeeds at once. Anything else is a 404.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// What the stand-in holds: objects by id, and the next id's number.
#[derive(Default)]
struct Stand {
    objects: Mutex<HashMap<String, Value>>,
    next: AtomicU64,
}

impl Stand {
    fn id(&self, prefix: &str) -> String {
        format!("{prefix}_{:08}", self.next.fetch_add(1, Ordering::Relaxed))
    }

    fn put(&self, object: Value) -> Value {
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        self.objects.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, object.clone());
        object
    }

    fn get(&self, id: &str) -> Option<Value> {
        self.objects.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(id).cloned()
    }

    /// A waiting setup intent confirmed with a new card.
    fn confirm(&self, id: &str) -> Option<Value> {
        let mut setup = self.get(id)?;
        setup["status"] = json!("succeeded");
        setup["payment_method"] = json!(self.id("pm"));
        Some(self.put(setup))
    }

    fn answer(&self, method: &Method, path: &str, form: &HashMap<String, String>) -> Option<Value> {
        let field = |name: &str| form.get(name).cloned().unwrap_or_default();
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (method, parts.as_slice()) {
            (&Method::POST, ["v1", "customers"]) => Some(self.put(json!({"id": self.id("cus"), "object": "customer"}))),
            (&Method::POST, ["v1", "setup_intents"]) => {
                let id = self.id("seti");
                let secret = format!("{id}_secret_standin");
                let setup = json!({"id": id, "object": "setup_intent", "status": "requires_payment_method",
                    "client_secret": secret, "customer": field("customer"), "payment_method": null});
                Some(self.put(setup))
            }
            (&Method::POST, ["v1", "setup_intents", id, "confirm"]) => self.confirm(id),
            (&Method::POST, ["_confirm_all"]) => {
                let waiting: Vec<String> = {
                    let objects = self.objects.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    let waiting = objects.values().filter(|o| o["status"] == "requires_payment_method");
                    waiting.filter_map(|o| o["id"].as_str().map(str::to_owned)).collect()
                };
                let confirmed = waiting.iter().filter_map(|id| self.confirm(id)).count();
                Some(json!({"confirmed": confirmed}))
            }
            (&Method::POST, ["v1", "payment_intents"]) => {
                let id = self.id("pi");
                let hold = field("capture_method") == "manual";
                let metadata: serde_json::Map<String, Value> = form
                    .iter()
                    .filter_map(|(k, v)| Some((k.strip_prefix("metadata[")?.strip_suffix(']')?.to_owned(), json!(v))))
                    .collect();
                let amount: i64 = field("amount").parse().unwrap_or(0);
                let intent = json!({"id": id, "object": "payment_intent", "amount": amount,
                    "amount_received": if hold { 0 } else { amount }, "currency": field("currency"),
                    "customer": field("customer"), "client_secret": format!("{id}_secret_standin"),
                    "status": if hold { "requires_capture" } else { "succeeded" }, "metadata": metadata});
                Some(self.put(intent))
            }
            (&Method::GET, ["v1", "setup_intents" | "payment_intents", id]) => self.get(id),
            _ => None,
        }
    }
}

/// A form body (or a query) as its fields, percent-decoded.
fn fields(text: &str) -> HashMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'%' if i + 2 < bytes.len() => {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                    out.push(hex.and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(b'?'));
                    i += 3;
                }
                b'+' => {
                    out.push(b' ');
                    i += 1;
                }
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    text.split('&').filter_map(|pair| pair.split_once('=')).map(|(k, v)| (decode(k), decode(v))).collect()
}

async fn handle(stand: Arc<Stand>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map(http_body_util::Collected::to_bytes).unwrap_or_default();
    let form = fields(&String::from_utf8_lossy(&body));
    let (status, value) = match stand.answer(&parts.method, parts.uri.path(), &form) {
        Some(value) => (StatusCode::OK, value),
        None => (StatusCode::NOT_FOUND, json!({"error": {"message": "no such object or call"}})),
    };
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    Ok(response)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18082".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("Stripe stand-in on http://{}", listener.local_addr()?);
    let stand = Arc::new(Stand::default());
    loop {
        let (stream, _) = listener.accept().await?;
        let stand = stand.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(stand.clone(), req));
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
