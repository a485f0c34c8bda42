//! A small HTTP client for a running `rental serve`: the CLI's remote mode
//! (`--url`, `--api-key`) and `rental mcp --url` talk to the API through it.
//!
//! Each call opens one connection (plain TCP, or TLS with Mozilla's roots),
//! sends one request with the bearer key and reads the JSON answer. A problem
//! response (RFC 9457) becomes [`RemoteError::Problem`], whose message is the
//! problem's `detail`. Loopback and private addresses are allowed on purpose:
//! the server is usually on the same machine or the same network, and the
//! address is the user's own choice, not a value from outside.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;

/// How long one request may take by default, from connecting to the last byte of the answer.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer read: a full page of bookings or a year of availability is far below it.
pub const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// `--url` and `--api-key`, for the commands that can work through a running server.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RemoteArgs {
    /// Work through the API of the server at URL instead of on the local data directory
    #[arg(long, global = true, value_name = "URL", env = "RENTAL_URL")]
    pub url: Option<String>,
    /// The API key for --url: the read scope to look, the write scope to book, confirm or cancel
    #[arg(long, global = true, value_name = "KEY", env = "RENTAL_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
}

impl RemoteArgs {
    /// The server to talk to, or `None` to work on the local data directory.
    pub fn remote(&self) -> Result<Option<Remote>, BadRemote> {
        let url = self.url.as_deref().filter(|u| !u.trim().is_empty());
        url.map(|url| Remote::from_args(url, self.api_key.as_deref())).transpose()
    }
}

/// A running server's API, reached with one API key.
#[derive(Clone)]
pub struct Remote {
    /// `http` or `https`.
    tls: bool,
    /// Host name or address, without brackets.
    host: String,
    /// `host:port` as the `Host` header carries it.
    authority: String,
    port: u16,
    /// The path the API lives under, without a trailing `/` (usually empty).
    base_path: String,
    /// `Bearer <key>`.
    authorization: HeaderValue,
    /// How long one call may take.
    timeout: Duration,
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key stays out of debug output.
        write!(f, "Remote({})", self.base_url())
    }
}

/// Why a call to the server failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteError {
    /// The server answered with a problem (RFC 9457).
    Problem {
        /// The HTTP status.
        status: u16,
        /// The problem's stable `code`, such as `dates_unavailable`.
        code: String,
        /// The problem's sentence for people.
        detail: String,
    },
    /// No answer: the server could not be reached, or it stopped answering.
    Unreachable {
        /// The server's URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// An answer that is not the API's JSON.
    BadResponse(String),
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoteError::Problem { detail, .. } => f.write_str(detail),
            RemoteError::Unreachable { url, reason } => write!(f, "cannot reach the server at {url}: {reason}"),
            RemoteError::BadResponse(message) => write!(f, "the server's answer is not the API's JSON: {message}"),
        }
    }
}

impl std::error::Error for RemoteError {}

/// Why `--url`/`--api-key` cannot be used: a usage error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRemote(pub String);

impl fmt::Display for BadRemote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Remote {
    /// The server at `url` (`http://host:port`, optionally with a path prefix), with `api_key`.
    pub fn from_args(url: &str, api_key: Option<&str>) -> Result<Self, BadRemote> {
        let bad = |why: &str| BadRemote(format!("--url {url:?}: {why}"));
        let uri: Uri = url.trim().parse().map_err(|_| bad("not a URL like http://127.0.0.1:8080"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(bad("the URL must start with http:// or https://")),
        };
        let authority = uri.authority().ok_or_else(|| bad("the URL has no host"))?;
        if uri.query().is_some() || authority.as_str().contains('@') {
            return Err(bad("the URL must not carry a query or credentials"));
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_owned();
        let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let key = api_key
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .ok_or_else(|| BadRemote("--url needs an API key: pass --api-key or set RENTAL_API_KEY".to_owned()))?;
        let authorization = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| BadRemote("--api-key: not a key like rk_...".to_owned()))?;
        Ok(Remote {
            tls,
            host,
            authority: authority.as_str().to_owned(),
            port,
            base_path: uri.path().trim_end_matches('/').to_owned(),
            authorization,
            timeout: TIMEOUT,
        })
    }

    /// The same server, waiting up to `timeout` for each answer (a sync over many feeds
    /// answers only once every feed was pulled).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The server's URL, as given (without a trailing `/`).
    pub fn base_url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}{}", self.authority, self.base_path)
    }

    /// `GET path` (such as `/api/v1/bookings?status=pending`).
    pub async fn get(&self, path: &str) -> Result<Value, RemoteError> {
        self.send(Method::GET, path, None).await
    }

    /// `POST path` with `body` as JSON.
    pub async fn post(&self, path: &str, body: &impl Serialize) -> Result<Value, RemoteError> {
        self.send(Method::POST, path, Some(to_bytes(body)?)).await
    }

    /// `POST path` with `body` as JSON and, when given, an `Idempotency-Key`.
    pub async fn post_idempotent(
        &self,
        path: &str,
        body: &impl Serialize,
        key: Option<&str>,
    ) -> Result<Value, RemoteError> {
        let mut request = self.request(Method::POST, path, Some(to_bytes(body)?))?;
        if let Some(key) = key {
            // What the server would say, for a key that cannot even be sent as a header.
            let value = http::HeaderValue::from_str(key).map_err(|_| RemoteError::Problem {
                status: 422,
                code: "validation_failed".to_owned(),
                detail: rental_core::Error::invalid(
                    "Idempotency-Key",
                    "invalid",
                    "must be 1 to 255 visible ASCII characters",
                )
                .to_string(),
            })?;
            request.headers_mut().insert("idempotency-key", value);
        }
        self.exchange_within(request).await
    }

    /// `PATCH path` with `body` as JSON.
    pub async fn patch(&self, path: &str, body: &impl Serialize) -> Result<Value, RemoteError> {
        self.send(Method::PATCH, path, Some(to_bytes(body)?)).await
    }

    /// `DELETE path`; a 204 answers `null`.
    pub async fn delete(&self, path: &str) -> Result<Value, RemoteError> {
        self.send(Method::DELETE, path, None).await
    }

    /// [`Remote::delete`] for a program without an async runtime.
    pub fn delete_json(&self, path: &str) -> Result<Value, RemoteError> {
        block_on(self.delete(path))
    }

    /// [`Remote::get`] for a program without an async runtime.
    pub fn get_json(&self, path: &str) -> Result<Value, RemoteError> {
        block_on(self.get(path))
    }

    /// [`Remote::post`] for a program without an async runtime.
    pub fn post_json(&self, path: &str, body: &impl Serialize) -> Result<Value, RemoteError> {
        block_on(self.post(path, body))
    }

    /// [`Remote::patch`] for a program without an async runtime.
    pub fn patch_json(&self, path: &str, body: &impl Serialize) -> Result<Value, RemoteError> {
        block_on(self.patch(path, body))
    }

    /// One request and its JSON answer, within [`TIMEOUT`].
    async fn send(&self, method: Method, path: &str, body: Option<Bytes>) -> Result<Value, RemoteError> {
        self.exchange_within(self.request(method, path, body)?).await
    }

    /// Sends `request` and reads its JSON answer, within [`TIMEOUT`].
    async fn exchange_within(&self, request: Request<Full<Bytes>>) -> Result<Value, RemoteError> {
        let (status, bytes) = tokio::time::timeout(self.timeout, self.exchange(request))
            .await
            .map_err(|_| self.unreachable(format!("no answer within {:?}", self.timeout)))??;
        answer(status, &bytes)
    }

    fn request(&self, method: Method, path: &str, body: Option<Bytes>) -> Result<Request<Full<Bytes>>, RemoteError> {
        let has_body = body.is_some();
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base_path))
            .header(header::HOST, &self.authority)
            .header(header::AUTHORIZATION, self.authorization.clone())
            .header(header::ACCEPT, "application/json")
            .header(header::USER_AGENT, concat!("rental/", env!("CARGO_PKG_VERSION")));
        if has_body {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        request
            .body(Full::new(body.unwrap_or_default()))
            .map_err(|e| RemoteError::BadResponse(format!("cannot build the request for {path}: {e}")))
    }

    /// `GET path`, its answer as bytes (up to `limit`), for an answer that is not
    /// JSON (a backup file); a problem answer is [`RemoteError::Problem`].
    pub fn get_bytes(&self, path: &str, limit: usize) -> Result<Bytes, RemoteError> {
        let request = self.request(Method::GET, path, None)?;
        let (status, bytes) = block_on(async {
            tokio::time::timeout(self.timeout, self.exchange_limited(request, limit))
                .await
                .map_err(|_| self.unreachable(format!("no answer within {:?}", self.timeout)))?
        })?;
        if status.is_success() {
            return Ok(bytes);
        }
        answer(status, &bytes).map(|_| Bytes::new())
    }

    async fn exchange(&self, request: Request<Full<Bytes>>) -> Result<(StatusCode, Bytes), RemoteError> {
        self.exchange_limited(request, MAX_RESPONSE_BYTES).await
    }

    async fn exchange_limited(
        &self,
        request: Request<Full<Bytes>>,
        limit: usize,
    ) -> Result<(StatusCode, Bytes), RemoteError> {
        let tcp = TcpStream::connect((self.host.as_str(), self.port)).await.map_err(|e| self.unreachable(e))?;
        if !self.tls {
            return self.over(tcp, request, limit).await;
        }
        let name = ServerName::try_from(self.host.clone()).map_err(|e| self.unreachable(e))?;
        let tls = tls_connector().map_err(|e| self.unreachable(e))?;
        let stream = tls.connect(name, tcp).await.map_err(|e| self.unreachable(e))?;
        self.over(stream, request, limit).await
    }

    async fn over<T>(
        &self,
        io: T,
        request: Request<Full<Bytes>>,
        limit: usize,
    ) -> Result<(StatusCode, Bytes), RemoteError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(io)).await.map_err(|e| self.unreachable(e))?;
        let driver = tokio::spawn(connection);
        let response = sender.send_request(request).await.map_err(|e| self.unreachable(e))?;
        let status = response.status();
        let body = Limited::new(response.into_body(), limit)
            .collect()
            .await
            .map_err(|e| self.unreachable(format!("the answer broke off: {e}")))?
            .to_bytes();
        driver.abort();
        Ok((status, body))
    }

    fn unreachable(&self, reason: impl fmt::Display) -> RemoteError {
        RemoteError::Unreachable { url: self.base_url(), reason: reason.to_string() }
    }
}

/// The JSON of a 2xx answer, or the problem of any other.
fn answer(status: StatusCode, bytes: &[u8]) -> Result<Value, RemoteError> {
    let json: Option<Value> = serde_json::from_slice(bytes).ok();
    if status == StatusCode::NO_CONTENT {
        return Ok(Value::Null);
    }
    if status.is_success() {
        return json.ok_or_else(|| RemoteError::BadResponse(format!("a {status} answer without a JSON body")));
    }
    let field = |name: &str| json.as_ref().and_then(|v| v.get(name)).and_then(Value::as_str).map(str::to_owned);
    let detail = field("detail").unwrap_or_else(|| format!("the server answered {status}"));
    Err(RemoteError::Problem { status: status.as_u16(), code: field("code").unwrap_or_default(), detail })
}

fn to_bytes(body: &impl Serialize) -> Result<Bytes, RemoteError> {
    serde_json::to_vec(body)
        .map(Bytes::from)
        .map_err(|e| RemoteError::BadResponse(format!("cannot write the request body: {e}")))
}

/// The TLS client: the server's outbound configuration (Mozilla's roots, the ring provider).
fn tls_connector() -> Result<TlsConnector, tokio_rustls::rustls::Error> {
    Ok(TlsConnector::from(Arc::new(rental_server::outbound::client_tls_config()?)))
}

/// Runs one call on a runtime of its own (the CLI's commands are synchronous).
fn block_on<T>(call: impl Future<Output = Result<T, RemoteError>>) -> Result<T, RemoteError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| {
        RemoteError::Unreachable { url: String::new(), reason: format!("cannot start the I/O runtime: {e}") }
    })?;
    runtime.block_on(call)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// `value` percent-encoded for a query string or a path segment.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
    out
}

/// `path` followed by the `(name, value)` pairs that have a value, as a query string.
pub fn with_query(path: &str, pairs: &[(&str, Option<String>)]) -> String {
    let query: Vec<String> =
        pairs.iter().filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={}", encode(v)))).collect();
    if query.is_empty() { path.to_owned() } else { format!("{path}?{}", query.join("&")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_need_a_key() {
        let remote = Remote::from_args("http://127.0.0.1:8080/", Some("rk_x")).unwrap();
        assert_eq!(
            (remote.host.as_str(), remote.port, remote.base_url()),
            ("127.0.0.1", 8080, "http://127.0.0.1:8080".into())
        );
        let prefixed = Remote::from_args("https://example.com/rental", Some("rk_x")).unwrap();
        assert_eq!((prefixed.port, prefixed.base_path.as_str()), (443, "/rental"));
        let v6 = Remote::from_args("http://[::1]:9000", Some("rk_x")).unwrap();
        assert_eq!((v6.host.as_str(), v6.authority.as_str()), ("::1", "[::1]:9000"));
        for bad in ["127.0.0.1:8080", "ftp://example.com", "http://", "http://u:p@example.com", "http://x/?a=1"] {
            assert!(Remote::from_args(bad, Some("rk_x")).is_err(), "{bad}");
        }
        let no_key = Remote::from_args("http://127.0.0.1:8080", None).unwrap_err();
        assert!(no_key.0.contains("RENTAL_API_KEY"), "{no_key}");
        assert!(Remote::from_args("http://127.0.0.1:8080", Some("  ")).is_err());
        assert!(!format!("{remote:?}").contains("rk_x"), "the key stays out of debug output");
    }

    #[test]
    fn a_problem_answer_reads_as_its_detail() {
        let body = br#"{"type":"about:blank","title":"Conflict","status":409,"code":"dates_unavailable","detail":"2030-12-24 is already booked"}"#;
        let err = answer(StatusCode::CONFLICT, body).unwrap_err();
        assert_eq!(err.to_string(), "2030-12-24 is already booked");
        assert!(matches!(err, RemoteError::Problem { status: 409, ref code, .. } if code == "dates_unavailable"));
        let bare = answer(StatusCode::BAD_GATEWAY, b"<html>").unwrap_err();
        assert_eq!(bare.to_string(), "the server answered 502 Bad Gateway");
        assert_eq!(answer(StatusCode::OK, br#"{"a":1}"#).unwrap(), serde_json::json!({"a": 1}));
        assert!(matches!(answer(StatusCode::OK, b"nope"), Err(RemoteError::BadResponse(_))));
    }

    #[tokio::test]
    async fn a_server_that_accepts_but_never_answers_times_out() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let held = tokio::spawn(async move { listener.accept().await });
        let mut remote = Remote::from_args(&url, Some("rk_x")).unwrap();
        remote.timeout = Duration::from_millis(200);
        let err = remote.get("/api/v1/properties").await.unwrap_err();
        assert_eq!(err.to_string(), format!("cannot reach the server at {url}: no answer within 200ms"));
        held.abort();
    }

    #[test]
    fn query_strings_are_encoded_and_skip_absent_values() {
        let path = with_query("/api/v1/bookings", &[("status", Some("pending,confirmed".into())), ("from", None)]);
        assert_eq!(path, "/api/v1/bookings?status=pending%2Cconfirmed");
        assert_eq!(with_query("/x", &[("a", None)]), "/x");
        assert_eq!(encode("2026-11-22T07:39:21+01:00"), "2026-11-22T07%3A39%3A21%2B01%3A00");
    }
}
