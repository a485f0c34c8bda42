//! The ceiling of the HTTP load harness: a minimal hyper server, built the
//! same way as `rental-server`, answering every request with one JSON body:
//! the bytes of a file given, or a fixed 200-byte one. `benches/load.sh`
//! measures each read of the real server beside a ceiling answering the
//! same bytes (and an `x-request-id` header shaped like ours).
//!
//! `cargo run --release -p rental-server --example ceiling -- 127.0.0.1:18081 [BODY_FILE]`

use std::convert::Infallible;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

/// 200 bytes of JSON.
const BODY: &[u8; 200] = br#"{"property":"sea-view","from":"2026-12-01","to":"2026-12-02","currency":"USD","nights":[{"date":"2026-12-01","available":true,"price":15000,"minNights":2,"status":"available"}],"padding":"xxxxxxxxxx"}"#;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:18081".to_owned());
    let body = match args.next() {
        Some(file) => Bytes::from(std::fs::read(file)?),
        None => Bytes::from_static(BODY),
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("ceiling server on http://{} ({} bytes a body)", listener.local_addr()?, body.len());
    loop {
        let (stream, _) = listener.accept().await?;
        let body = body.clone();
        tokio::spawn(async move {
            let service = service_fn(move |_req| {
                let body = body.clone();
                async move {
                    let mut response = Response::new(Full::new(body));
                    let headers = response.headers_mut();
                    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                    headers.insert("x-request-id", HeaderValue::from_static("req_0000_000000"));
                    Ok::<_, Infallible>(response)
                }
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
