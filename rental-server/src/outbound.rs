//! The server's one outbound HTTP client: webhook deliveries (POST, never redirected)
//! and iCal pulls (GET, a few redirects), reaching only public addresses (docs/API.md section 10).
//!
//! Why it is built this way: the address check is only worth something if the socket goes to
//! the address that was checked. A hostname resolved twice (once to check, once by a connector)
//! can answer differently the second time (DNS rebinding). So each request resolves the host
//! itself with [`tokio::net::lookup_host`], refuses the whole host if any answer is not public
//! (see [`blocked_range`]), connects a `TcpStream` to a checked `SocketAddr`, runs TLS over that
//! stream with `tokio-rustls` (Mozilla roots from `webpki-roots`, SNI = the URL host, the `ring`
//! provider passed explicitly, never picked by crate features), and speaks HTTP/1.1 over it with
//! `hyper::client::conn::http1`. hyper-util's pooled legacy client and hyper-rustls's connector
//! were not used: they own the connect step (a `Service<Uri>` that resolves on its own) and hide
//! which step failed, while here every step maps to one [`OutboundError`] variant. Instead, a small
//! pool of its own (`Pool`, below) keeps idle keep-alive connections, so a webhook worker
//! delivering to the same receiver does not open a new connection (and TLS session) per delivery.
//!
//! Every call runs under one overall timeout (DNS, connect, TLS, request, body, redirects), reads
//! at most `max_body` bytes (more is an error, never a silent truncation), and sends the configured
//! `User-Agent`. Redirects are followed only by [`Outbound::get`], up to the number the caller gives,
//! and each hop is resolved and checked again.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{
    AUTHORIZATION, CONNECTION, CONTENT_LENGTH, COOKIE, HOST, LOCATION, PROXY_AUTHORIZATION, TRANSFER_ENCODING,
    USER_AGENT,
};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Uri, Version};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// How the client is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundConfig {
    /// Allow loopback, private, link-local and other non-public targets (tests, LAN self-hosters).
    pub allow_private_targets: bool,
    /// Sent as `User-Agent` on every request, whatever the caller's headers say.
    pub user_agent: String,
}

impl Default for OutboundConfig {
    /// Public targets only, `User-Agent: rental/<version>`.
    fn default() -> Self {
        OutboundConfig {
            allow_private_targets: false,
            user_agent: concat!("rental/", env!("CARGO_PKG_VERSION")).into(),
        }
    }
}

/// The outbound HTTP client. Build it once and clone it freely: clones share one TLS config and
/// one pool of idle connections.
#[derive(Clone)]
pub struct Outbound {
    inner: Arc<Inner>,
}

struct Inner {
    tls: TlsConnector,
    allow_private_targets: bool,
    user_agent: HeaderValue,
    pool: Pool,
}

impl fmt::Debug for Outbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbound")
            .field("allow_private_targets", &self.inner.allow_private_targets)
            .field("user_agent", &self.inner.user_agent)
            .finish_non_exhaustive()
    }
}

/// A response, read in full.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status of the last response (a 3xx when redirects were not followed).
    pub status: StatusCode,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body, at most the `max_body` the caller gave.
    pub body: Bytes,
    /// From the call to the last body byte, redirects included.
    pub elapsed: Duration,
}

/// Why an outbound request failed. `Display` is the whole message: short, lowercase, and fit to
/// store as a delivery attempt's error or to show a host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutboundError {
    /// The URL (or a redirect's `Location`) is not an absolute `http`/`https` URL this client can fetch.
    #[error("invalid url: {reason}")]
    InvalidUrl {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The host resolved to an address that is not public, and private targets are not allowed.
    #[error("refused target {addr}: {range} address")]
    Refused {
        /// The refused address.
        addr: IpAddr,
        /// The kind of range it is in, as [`blocked_range`] names it.
        range: &'static str,
    },
    /// The host name could not be resolved.
    #[error("dns lookup of {host} failed: {error}")]
    Dns {
        /// The host name.
        host: String,
        /// The resolver's error.
        error: io::Error,
    },
    /// No TCP connection could be made (the error of the last address tried).
    #[error("connect to {addr} failed: {error}")]
    Connect {
        /// The address tried last.
        addr: SocketAddr,
        /// The socket error.
        error: io::Error,
    },
    /// The TLS handshake failed (bad certificate, not a TLS server, closed early).
    #[error("tls handshake with {host} failed: {error}")]
    Tls {
        /// The server name that was verified.
        host: String,
        /// The handshake error.
        error: io::Error,
    },
    /// The whole call took longer than the caller's timeout.
    #[error("timed out after {} ms", .after.as_millis())]
    Timeout {
        /// The timeout given.
        after: Duration,
    },
    /// The response body is longer than the caller's limit.
    #[error("response body exceeds {limit} bytes")]
    BodyTooLarge {
        /// The limit given.
        limit: usize,
    },
    /// More redirects than the caller allowed.
    #[error("more than {limit} redirects")]
    TooManyRedirects {
        /// The number of redirects allowed.
        limit: u8,
    },
    /// The HTTP exchange failed after connecting (connection closed, malformed response).
    #[error("http error: {0}")]
    Http(hyper::Error),
    /// Another I/O failure while reading the response.
    #[error("i/o error: {0}")]
    Io(io::Error),
    /// The client could not be built from its config.
    #[error("invalid outbound config: {reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
}

fn invalid(reason: &'static str) -> OutboundError {
    OutboundError::InvalidUrl { reason }
}

/// One call's parameters, shared by every redirect hop.
struct Call<'a> {
    method: Method,
    headers: &'a [(HeaderName, HeaderValue)],
    body: Bytes,
    max_body: usize,
    max_redirects: u8,
}

impl Outbound {
    /// A client with Mozilla's roots and the `ring` provider.
    pub fn new(config: OutboundConfig) -> Result<Self, OutboundError> {
        let user_agent = HeaderValue::try_from(config.user_agent)
            .map_err(|_| OutboundError::Config { reason: "the user agent is not a valid header value".into() })?;
        let tls = client_tls_config().map_err(|e| OutboundError::Config { reason: e.to_string() })?;
        let inner = Inner {
            tls: TlsConnector::from(Arc::new(tls)),
            allow_private_targets: config.allow_private_targets,
            user_agent,
            pool: Pool::default(),
        };
        Ok(Outbound { inner: Arc::new(inner) })
    }

    /// POSTs `body` to `url` with `headers` (plus `Host` and `User-Agent`). Redirects are not
    /// followed: a 3xx comes back as the reply.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(HeaderName, HeaderValue)],
        body: Bytes,
        timeout: Duration,
        max_body: usize,
    ) -> Result<Reply, OutboundError> {
        let call = Call { method: Method::POST, headers, body, max_body, max_redirects: 0 };
        self.call(url, &call, timeout).await
    }

    /// GETs `url` with `headers` (for example `If-None-Match`), following at most `max_redirects`
    /// redirects (0: a 3xx comes back as the reply). Credentials headers are dropped when a redirect
    /// leaves the origin.
    pub async fn get(
        &self,
        url: &str,
        headers: &[(HeaderName, HeaderValue)],
        timeout: Duration,
        max_body: usize,
        max_redirects: u8,
    ) -> Result<Reply, OutboundError> {
        let call = Call { method: Method::GET, headers, body: Bytes::new(), max_body, max_redirects };
        self.call(url, &call, timeout).await
    }

    async fn call(&self, url: &str, call: &Call<'_>, timeout: Duration) -> Result<Reply, OutboundError> {
        let started = Instant::now();
        let (response, body) = tokio::time::timeout(timeout, self.follow(url, call))
            .await
            .map_err(|_| OutboundError::Timeout { after: timeout })??;
        Ok(Reply { status: response.status, headers: response.headers, body, elapsed: started.elapsed() })
    }

    /// Sends the request, then each redirect the call allows, and reads the last body.
    async fn follow(&self, url: &str, call: &Call<'_>) -> Result<(http::response::Parts, Bytes), OutboundError> {
        let mut target = Target::parse(url)?;
        let mut cross_origin = false;
        let mut redirects = 0u8;
        loop {
            let (response, conn) = self.send(&target, call, cross_origin).await?;
            let Some(location) = redirect_to(&response, call.max_redirects)? else {
                let (parts, body) = response.into_parts();
                let body = read_body(body, &parts.headers, call.max_body).await?;
                if reusable(&parts) {
                    self.inner.pool.put(PoolKey::of(&target), conn);
                }
                return Ok((parts, body));
            };
            if redirects >= call.max_redirects {
                return Err(OutboundError::TooManyRedirects { limit: call.max_redirects });
            }
            redirects += 1;
            let next = resolve_location(&target.uri, location)
                .ok_or(invalid("the redirect location is not a valid url"))
                .and_then(|url| Target::parse(&url))?;
            cross_origin |= !target.same_origin(&next);
            target = next;
        }
    }

    /// One request to one target, on an idle pooled connection if there is a ready one, else on a
    /// new one (check, connect, handshake). The response head comes back with the connection (keep
    /// it until the body is read). A reused connection that fails before any response byte arrived
    /// (the server closed it while idle) is retried once on a new connection; any later failure is
    /// returned, so a POST is never sent twice to a server that may have seen it.
    async fn send(
        &self,
        target: &Target,
        call: &Call<'_>,
        cross_origin: bool,
    ) -> Result<(Response<Incoming>, Conn), OutboundError> {
        if let Some(mut conn) = self.inner.pool.take(&PoolKey::of(target)).await {
            let read_before = conn.bytes_read();
            match conn.sender.try_send_request(self.request(target, call, cross_origin)?).await {
                Ok(response) => return Ok((response, conn)),
                Err(e) if e.message().is_none() && conn.bytes_read() != read_before => {
                    return Err(OutboundError::Http(e.into_error()));
                }
                Err(e) => tracing::debug!(error = %e.error(), "reused outbound connection failed unanswered, retrying"),
            }
        }
        let addrs = self.resolve(target).await?;
        let request = self.request(target, call, cross_origin)?;
        let mut conn = self.open(target, &addrs).await?;
        let response = conn.sender.send_request(request).await.map_err(OutboundError::Http)?;
        Ok((response, conn))
    }

    /// A new connection to one of `addrs` (checked by [`Outbound::resolve`]): connect, TLS, handshake.
    async fn open(&self, target: &Target, addrs: &[SocketAddr]) -> Result<Conn, OutboundError> {
        if !target.https {
            return Conn::handshake(connect(addrs).await?).await;
        }
        let name = ServerName::try_from(target.host.clone())
            .map_err(|_| invalid("the host is not a valid tls server name"))?;
        let tcp = connect(addrs).await?;
        let tls = self
            .inner
            .tls
            .connect(name, tcp)
            .await
            .map_err(|error| OutboundError::Tls { host: target.host.clone(), error })?;
        Conn::handshake(tls).await
    }

    /// The target's addresses, every one checked; an IP literal is not looked up.
    async fn resolve(&self, target: &Target) -> Result<Vec<SocketAddr>, OutboundError> {
        let addrs: Vec<SocketAddr> = if let Ok(ip) = target.host.parse::<IpAddr>() {
            vec![SocketAddr::new(ip, target.port)]
        } else {
            let dns = |error| OutboundError::Dns { host: target.host.clone(), error };
            tokio::net::lookup_host((target.host.as_str(), target.port)).await.map_err(dns)?.collect()
        };
        if addrs.is_empty() {
            let error = io::Error::new(io::ErrorKind::NotFound, "no addresses");
            return Err(OutboundError::Dns { host: target.host.clone(), error });
        }
        if !self.inner.allow_private_targets
            && let Some((addr, range)) = addrs.iter().find_map(|a| blocked_range(a.ip()).map(|r| (a.ip(), r)))
        {
            return Err(OutboundError::Refused { addr, range });
        }
        Ok(addrs)
    }

    fn request(
        &self,
        target: &Target,
        call: &Call<'_>,
        cross_origin: bool,
    ) -> Result<Request<Full<Bytes>>, OutboundError> {
        let path = match target.uri.query() {
            Some(query) => format!("{}?{query}", target.uri.path()),
            None => target.uri.path().to_owned(),
        };
        let mut request = Request::builder()
            .method(call.method.clone())
            .uri(path)
            .body(Full::new(call.body.clone()))
            .map_err(|_| invalid("the path is not a valid request target"))?;
        let headers = request.headers_mut();
        for (name, value) in call.headers {
            let ours = [HOST, USER_AGENT, CONTENT_LENGTH, TRANSFER_ENCODING].contains(name);
            let credential = [AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION].contains(name);
            let dropped = ours || (cross_origin && credential);
            if !dropped {
                headers.append(name.clone(), value.clone());
            }
        }
        let host = HeaderValue::from_str(&target.authority).map_err(|_| invalid("the host is not a valid header"))?;
        headers.insert(HOST, host);
        headers.insert(USER_AGENT, self.inner.user_agent.clone());
        Ok(request)
    }
}

/// The TLS client configuration of every outbound HTTPS call (also the CLI's remote mode):
/// Mozilla's roots, HTTP/1.1, and the `ring` provider passed explicitly, never picked by
/// crate features.
pub fn client_tls_config() -> Result<ClientConfig, tokio_rustls::rustls::Error> {
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// A parsed, absolute `http`/`https` URL.
#[derive(Debug)]
struct Target {
    uri: Uri,
    https: bool,
    /// Without the brackets of an IPv6 literal.
    host: String,
    port: u16,
    /// `host[:port]` as written, for the `Host` header.
    authority: String,
}

impl Target {
    fn parse(url: &str) -> Result<Target, OutboundError> {
        let uri: Uri = url.trim().parse().map_err(|_| invalid("not a valid url"))?;
        let https = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            Some("http") => false,
            Some("https") => true,
            Some(_) => return Err(invalid("only http and https urls are allowed")),
            None => return Err(invalid("not an absolute url")),
        };
        let authority = uri.authority().ok_or(invalid("the url has no host"))?;
        if authority.as_str().contains('@') {
            return Err(invalid("credentials in the url are not supported"));
        }
        let bracketed = authority.host();
        let host = bracketed.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(bracketed);
        if host.is_empty() {
            return Err(invalid("the url has no host"));
        }
        let port_text = authority.as_str().get(bracketed.len()..).and_then(|p| p.strip_prefix(':')).unwrap_or("");
        let port = match authority.port_u16() {
            Some(port) => port,
            None if port_text.is_empty() => {
                if https {
                    443
                } else {
                    80
                }
            }
            None => return Err(invalid("the port is not valid")),
        };
        let (host, authority) = (host.to_owned(), authority.as_str().to_owned());
        Ok(Target { uri, https, host, port, authority })
    }

    fn same_origin(&self, other: &Target) -> bool {
        self.https == other.https && self.port == other.port && self.host.eq_ignore_ascii_case(&other.host)
    }
}

/// Where a response redirects to, if it is a redirect the call follows.
fn redirect_to(response: &Response<Incoming>, max_redirects: u8) -> Result<Option<&str>, OutboundError> {
    let redirect = [301, 302, 303, 307, 308].contains(&response.status().as_u16());
    if max_redirects == 0 || !redirect {
        return Ok(None);
    }
    match response.headers().get(LOCATION) {
        None => Ok(None),
        Some(value) => value.to_str().map(Some).map_err(|_| invalid("the redirect location is not a valid url")),
    }
}

/// `location` resolved against `base` (RFC 3986 section 5.2, without dot-segment removal).
fn resolve_location(base: &Uri, location: &str) -> Option<String> {
    let location = location.trim();
    let scheme = base.scheme_str()?;
    let authority = base.authority()?.as_str();
    let path = base.path();
    let has_scheme = location
        .split_once(':')
        .is_some_and(|(s, _)| s.starts_with(|c: char| c.is_ascii_alphabetic()) && s.chars().all(is_scheme_char));
    let resolved = if location.is_empty() {
        return None;
    } else if location.starts_with("//") {
        format!("{scheme}:{location}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else if has_scheme {
        location.to_owned()
    } else if location.starts_with('?') {
        format!("{scheme}://{authority}{path}{location}")
    } else {
        let directory = path.rfind('/').map_or("/", |end| &path[..=end]);
        format!("{scheme}://{authority}{directory}{location}")
    };
    Some(resolved)
}

fn is_scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// Drives one HTTP/1 connection; aborted when dropped, so a timed-out call leaves no task behind.
struct Connection(JoinHandle<()>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn connect(addrs: &[SocketAddr]) -> Result<TcpStream, OutboundError> {
    let mut last = None;
    for &addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                stream.set_nodelay(true).ok();
                return Ok(stream);
            }
            Err(error) => last = Some(OutboundError::Connect { addr, error }),
        }
    }
    Err(last.unwrap_or(invalid("the url has no host")))
}

/// One HTTP/1 connection: the handle to send requests on, the task that drives it, and how many
/// response bytes it has read so far (to tell whether a failed request got any answer).
struct Conn {
    sender: SendRequest<Full<Bytes>>,
    _driver: Connection,
    bytes_read: Arc<AtomicUsize>,
}

impl Conn {
    async fn handshake<T>(io: T) -> Result<Conn, OutboundError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let bytes_read = Arc::new(AtomicUsize::new(0));
        let io = TokioIo::new(Counted { io, bytes_read: Arc::clone(&bytes_read) });
        let (sender, connection) = hyper::client::conn::http1::handshake(io).await.map_err(OutboundError::Http)?;
        let driver = Connection(tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "outbound connection ended with an error");
            }
        }));
        Ok(Conn { sender, _driver: driver, bytes_read })
    }

    fn bytes_read(&self) -> usize {
        self.bytes_read.load(Ordering::Relaxed)
    }
}

/// A stream that counts the bytes read from it (after TLS: response bytes, not records).
struct Counted<T> {
    io: T,
    bytes_read: Arc<AtomicUsize>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        this.bytes_read.fetch_add(buf.filled().len() - before, Ordering::Relaxed);
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

// ---------------------------------------------------------------------------------------------
// The connection pool.

/// Idle connections kept at most this long (checked when one is taken or put back).
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many idle connections per key.
const IDLE_PER_KEY: usize = 4;
/// At most this many idle connections in all.
const IDLE_TOTAL: usize = 64;

/// Idle keep-alive connections, keyed by scheme, host and port.
///
/// Why reuse is safe with the address rules: a connection only enters the pool after it was made
/// to an address that [`Outbound::resolve`] checked (by this same client, so under the same
/// `allow_private_targets`), and the socket cannot move to another address afterwards. The key
/// holds everything that chose that address and the TLS identity: the scheme (TLS or not), the
/// host exactly as resolved and verified (ASCII-lowercased: DNS names and certificates ignore
/// case) and the port. A request is only ever sent on a connection whose key equals its own, so
/// it reaches an address that was checked for its host. A host that now resolves elsewhere (DNS
/// rebinding included) gains nothing: new connections still resolve, check and connect afresh,
/// and a pooled one keeps talking to the address that was checked. Idle connections expire after
/// [`IDLE_TIMEOUT`], so a changed DNS answer is followed within that time.
#[derive(Default)]
struct Pool {
    idle: Mutex<HashMap<PoolKey, Vec<Idle>>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    https: bool,
    host: String,
    port: u16,
}

impl PoolKey {
    fn of(target: &Target) -> PoolKey {
        PoolKey { https: target.https, host: target.host.to_ascii_lowercase(), port: target.port }
    }
}

struct Idle {
    conn: Conn,
    since: Instant,
}

impl Idle {
    fn usable(&self) -> bool {
        self.since.elapsed() < IDLE_TIMEOUT && !self.conn.sender.is_closed()
    }
}

impl Pool {
    /// The most recently used idle connection for `key` that is still open and ready for a request.
    async fn take(&self, key: &PoolKey) -> Option<Conn> {
        loop {
            let mut conn = self.pop(key)?;
            if conn.sender.ready().await.is_ok() {
                return Some(conn);
            }
        }
    }

    fn pop(&self, key: &PoolKey) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.get_mut(key)?;
        let mut found = None;
        while let Some(entry) = list.pop() {
            if entry.usable() {
                found = Some(entry.conn);
                break;
            }
        }
        if list.is_empty() {
            idle.remove(key);
        }
        found
    }

    /// Keeps `conn` for the next request to `key`, unless the pool is full (then it is closed).
    fn put(&self, key: PoolKey, conn: Conn) {
        if conn.sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let mut total: usize = idle.values().map(Vec::len).sum();
        if total >= IDLE_TOTAL {
            idle.retain(|_, list| {
                list.retain(Idle::usable);
                !list.is_empty()
            });
            total = idle.values().map(Vec::len).sum();
        }
        let list = idle.entry(key).or_default();
        list.retain(Idle::usable);
        if total < IDLE_TOTAL && list.len() < IDLE_PER_KEY {
            list.push(Idle { conn, since: Instant::now() });
        }
    }
}

/// Whether the connection may carry another request after this response (read in full).
fn reusable(parts: &http::response::Parts) -> bool {
    let close = parts
        .headers
        .get_all(CONNECTION)
        .iter()
        .any(|value| value.to_str().is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close"))));
    parts.version == Version::HTTP_11 && !close
}

/// The whole body, or [`OutboundError::BodyTooLarge`] as soon as it is known to exceed `max`.
async fn read_body(body: Incoming, headers: &HeaderMap, max: usize) -> Result<Bytes, OutboundError> {
    let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > u64::try_from(max).unwrap_or(u64::MAX)) {
        return Err(OutboundError::BodyTooLarge { limit: max });
    }
    match Limited::new(body, max).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => Err(OutboundError::BodyTooLarge { limit: max }),
        Err(e) => match e.downcast::<hyper::Error>() {
            Ok(e) => Err(OutboundError::Http(*e)),
            Err(e) => Err(OutboundError::Io(io::Error::other(e))),
        },
    }
}

/// The kind of non-public range `ip` is in, or `None` for a public address. IPv4-mapped,
/// IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address they carry.
pub fn blocked_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => blocked_v4(ip),
        IpAddr::V6(ip) => blocked_v6(ip),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let range = match ip.octets() {
        [255, 255, 255, 255] => "broadcast",
        [0, 0, 0, 0] => "unspecified",
        [0, ..] => "this-network",
        [127, ..] => "loopback",
        [10, ..] | [172, 16..=31, ..] | [192, 168, ..] => "private",
        [169, 254, ..] => "link-local",
        [100, 64..=127, ..] => "shared (cgnat)",
        [192, 0, 2, _] | [198, 51, 100, _] | [203, 0, 113, _] => "documentation",
        [198, 18..=19, ..] => "benchmarking",
        [224..=239, ..] => "multicast",
        [192, 0, 0, _] | [240..=255, ..] => "reserved",
        _ => return None,
    };
    Some(range)
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let range = match ip.segments() {
        [0, 0, 0, 0, 0, 0, 0, 0] => "unspecified",
        [0, 0, 0, 0, 0, 0, 0, 1] => "loopback",
        [0, 0, 0, 0, 0, 0xffff | 0, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] | [0x2002, hi, lo, ..] => {
            return blocked_v4(v4(hi, lo));
        }
        [0x64, 0xff9b, 1, ..] => "private (local nat64)",
        [0x100, 0, 0, 0, ..] => "discard",
        [0x2001, 0, ..] => "teredo",
        [0x2001, 2, 0, ..] => "benchmarking",
        [0x2001, 0xdb8, ..] => "documentation",
        [0x3fff, second, ..] if second & 0xf000 == 0 => "documentation",
        [first, ..] if first & 0xfe00 == 0xfc00 => "unique-local",
        [first, ..] if first & 0xffc0 == 0xfe80 => "link-local",
        [first, ..] if first & 0xffc0 == 0xfec0 => "site-local",
        [first, ..] if first & 0xff00 == 0xff00 => "multicast",
        [first, ..] if first & 0xe000 != 0x2000 => "reserved",
        _ => return None,
    };
    Some(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifier_names_each_range() {
        let cases: &[(&str, Option<&str>)] = &[
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("172.15.255.255", None),
            ("172.32.0.1", None),
            ("100.63.255.255", None),
            ("100.128.0.1", None),
            ("192.169.0.1", None),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("this-network")),
            ("127.0.0.1", Some("loopback")),
            ("127.255.255.254", Some("loopback")),
            ("10.0.0.1", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("100.64.0.1", Some("shared (cgnat)")),
            ("100.127.255.255", Some("shared (cgnat)")),
            ("192.0.2.1", Some("documentation")),
            ("198.51.100.7", Some("documentation")),
            ("203.0.113.9", Some("documentation")),
            ("198.18.0.1", Some("benchmarking")),
            ("224.0.0.1", Some("multicast")),
            ("239.255.255.250", Some("multicast")),
            ("192.0.0.8", Some("reserved")),
            ("240.0.0.1", Some("reserved")),
            ("255.255.255.255", Some("broadcast")),
            ("2606:4700:4700::1111", None),
            ("2001:4860:4860::8888", None),
            ("::ffff:8.8.8.8", None),
            ("::", Some("unspecified")),
            ("::1", Some("loopback")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.1.2.3", Some("private")),
            ("::ffff:169.254.169.254", Some("link-local")),
            ("::ffff:0.0.0.0", Some("unspecified")),
            ("::127.0.0.1", Some("loopback")),
            ("::192.168.0.1", Some("private")),
            ("64:ff9b::7f00:1", Some("loopback")),
            ("64:ff9b:1::1", Some("private (local nat64)")),
            ("2002:a00:1::1", Some("private")),
            ("2002:808:808::1", None),
            ("100::1", Some("discard")),
            ("2001::1", Some("teredo")),
            ("2001:2::1", Some("benchmarking")),
            ("2001:db8::1", Some("documentation")),
            ("3fff::1", Some("documentation")),
            ("3fff:1000::1", None),
            ("fc00::1", Some("unique-local")),
            ("fd12:3456::1", Some("unique-local")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fec0::1", Some("site-local")),
            ("ff02::1", Some("multicast")),
            ("4000::1", Some("reserved")),
        ];
        for &(ip, expected) in cases {
            let parsed: IpAddr = ip.parse().unwrap();
            assert_eq!(blocked_range(parsed), expected, "{ip}");
        }
    }

    #[test]
    fn targets_parse_scheme_host_and_port() {
        let cases: &[(&str, bool, &str, u16, &str)] = &[
            ("http://example.com", false, "example.com", 80, "example.com"),
            ("https://example.com/a?b=c", true, "example.com", 443, "example.com"),
            ("HTTPS://Example.com:8443/", true, "Example.com", 8443, "Example.com:8443"),
            ("http://[::1]:8080/x", false, "::1", 8080, "[::1]:8080"),
            ("http://[2001:db8::1]/", false, "2001:db8::1", 80, "[2001:db8::1]"),
            ("  http://10.0.0.1/  ", false, "10.0.0.1", 80, "10.0.0.1"),
        ];
        for &(url, https, host, port, authority) in cases {
            let t = Target::parse(url).unwrap();
            assert_eq!(
                (t.https, t.host.as_str(), t.port, t.authority.as_str()),
                (https, host, port, authority),
                "{url}"
            );
        }
    }

    #[test]
    fn bad_targets_are_invalid_urls() {
        let cases = [
            "",
            "garbage",
            "/relative",
            "ftp://example.com/",
            "file:///etc/passwd",
            "gopher://example.com",
            "http://",
            "http://user:pw@example.com/",
            "http://example.com:99999/",
            "http://exa mple.com/",
        ];
        for url in cases {
            assert!(matches!(Target::parse(url), Err(OutboundError::InvalidUrl { .. })), "{url}");
        }
    }

    #[test]
    fn locations_resolve_against_the_current_url() {
        let base: Uri = "https://a.example/feeds/one.ics?x=1".parse().unwrap();
        let cases: &[(&str, Option<&str>)] = &[
            ("https://b.example/c", Some("https://b.example/c")),
            ("http://b.example", Some("http://b.example")),
            ("//b.example/c", Some("https://b.example/c")),
            ("/root", Some("https://a.example/root")),
            ("/next?u=http://x", Some("https://a.example/next?u=http://x")),
            ("two.ics", Some("https://a.example/feeds/two.ics")),
            ("?y=2", Some("https://a.example/feeds/one.ics?y=2")),
            ("", None),
        ];
        for &(location, expected) in cases {
            assert_eq!(resolve_location(&base, location).as_deref(), expected, "{location}");
        }
    }

    #[test]
    fn error_messages_are_short_and_lowercase() {
        let cases = [
            (invalid("not a valid url"), "invalid url: not a valid url"),
            (
                OutboundError::Refused { addr: "127.0.0.1".parse().unwrap(), range: "loopback" },
                "refused target 127.0.0.1: loopback address",
            ),
            (OutboundError::Timeout { after: Duration::from_secs(10) }, "timed out after 10000 ms"),
            (OutboundError::BodyTooLarge { limit: 65536 }, "response body exceeds 65536 bytes"),
            (OutboundError::TooManyRedirects { limit: 5 }, "more than 5 redirects"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
