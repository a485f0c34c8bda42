//! The ceiling of the HTTP load harness: a minimal hyper server, built the
//! same way as `rental-server`, answering every request with a fixed 200-byte
//! JSON body. `benches/load.sh` measures the real server beside it.
//!
//! `cargo run --release -p rental-server --example ceiling -- 127.0.0.1:18081`

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
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18081".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("ceiling server on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let service = service_fn(|_req| async {
                let mut response = Response::new(Full::new(Bytes::from_static(BODY)));
                response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                Ok::<_, Infallible>(response)
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
