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
//! pool of its own (the `pool` module) keeps idle keep-alive connections, so a webhook worker
//! delivering to the same receiver does not open a new connection (and TLS session) per delivery.
//!
//! Every call runs under one overall timeout (DNS, connect, TLS, request, body, redirects), reads
//! at most `max_body` bytes (more is an error, never a silent truncation), and sends the configured
//! `User-Agent`. Redirects are followed only by [`Outbound::get`], up to the number the caller gives,
//! and each hop is resolved and checked again.

mod address;
mod conn;
mod error;
mod pool;
mod target;

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{AUTHORIZATION, CONTENT_LENGTH, COOKIE, HOST, PROXY_AUTHORIZATION, TRANSFER_ENCODING, USER_AGENT};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

pub use address::blocked_range;
use conn::{Conn, connect};
pub use error::OutboundError;
use error::invalid;
use pool::{Pool, PoolKey, reusable};
use target::{Target, redirect_to, resolve_location};

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
