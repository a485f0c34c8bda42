//! Where a form post came from: the `Origin` a browser sends with every POST,
//! compared with the dashboard's own origin, a second guard beside the CSRF token.
//!
//! The own origin is the scheme and the `Host` the request was sent to. The
//! scheme is `https` when a trusted reverse proxy says so (`X-Forwarded-Proto`)
//! or the base URL is https, else `http`; a trusted proxy's `X-Forwarded-Host`
//! names the host when it sends one. A post without `Origin` (an old browser,
//! a script) is left to the CSRF token; `Origin: null` is foreign.

use std::net::IpAddr;

use http::HeaderMap;

use crate::client_addr::TrustedProxies;

/// What a request says about the origin it was sent to.
#[derive(Debug, Clone, Copy)]
pub struct Arrival<'a> {
    /// The request's headers.
    pub headers: &'a HeaderMap,
    /// The TCP peer.
    pub peer: IpAddr,
    /// The reverse proxies whose forwarded headers are believed.
    pub proxies: &'a TrustedProxies,
    /// True when the base URL is https.
    pub https: bool,
}

impl Arrival<'_> {
    /// True when the request names an `Origin` that is not the dashboard's own.
    pub fn is_cross_origin(&self) -> bool {
        let Some(origin) = self.headers.get(http::header::ORIGIN) else { return false };
        let origin = origin.to_str().ok().and_then(|o| o.split_once("://")).and_then(|(s, a)| Origin::of(s, a));
        match (origin, self.own_origin()) {
            (Some(origin), Some(own)) => origin != own,
            _ => true,
        }
    }

    /// The scheme and host this request was sent to, as the browser saw them.
    fn own_origin(&self) -> Option<Origin> {
        let trusted = self.proxies.trusts(self.peer);
        let forwarded = |name: &str| {
            let value = self.headers.get(name).filter(|_| trusted)?.to_str().ok()?;
            value.split(',').next().map(str::trim).filter(|v| !v.is_empty())
        };
        let scheme = match forwarded("x-forwarded-proto") {
            Some(proto) => proto,
            None if self.https => "https",
            None => "http",
        };
        let host = match forwarded("x-forwarded-host") {
            Some(host) => host,
            None => self.headers.get(http::header::HOST)?.to_str().ok()?,
        };
        Origin::of(scheme, host)
    }
}

/// An origin reduced for comparison: lower-case scheme and host, the port always given.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// `scheme` and `authority` (`host`, `host:port`, `[v6]:port`); none for
    /// another scheme, user info, a path or a bad port.
    fn of(scheme: &str, authority: &str) -> Option<Origin> {
        let scheme = scheme.to_ascii_lowercase();
        let default = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        if authority.is_empty() || authority.contains(['/', '?', '#', '@', '\\']) {
            return None;
        }
        let (host, port) = split_port(authority)?;
        let port = match port {
            Some(port) => port.parse::<u16>().ok()?,
            None => default,
        };
        Some(Origin { scheme, host: host.to_ascii_lowercase(), port })
    }
}

/// `host` and the port after it, if any; an IPv6 host keeps its brackets.
fn split_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.starts_with('[') {
        let end = authority.find(']')? + 1;
        return match &authority[end..] {
            "" => Some((&authority[..end], None)),
            rest => Some((&authority[..end], Some(rest.strip_prefix(':')?))),
        };
    }
    match authority.split_once(':') {
        Some((host, port)) => Some((host, Some(port))),
        None => Some((authority, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival_is_cross(origin: &str, host: &str, forwarded: &[(&str, &str)], https: bool) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ORIGIN, origin.parse().unwrap());
        headers.insert(http::header::HOST, host.parse().unwrap());
        for (name, value) in forwarded {
            headers.insert(http::HeaderName::from_bytes(name.as_bytes()).unwrap(), value.parse().unwrap());
        }
        let proxies: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        let peer = if forwarded.is_empty() { "192.0.2.1" } else { "10.0.0.1" }.parse().unwrap();
        Arrival { headers: &headers, peer, proxies: &proxies, https }.is_cross_origin()
    }

    /// Origin, Host, forwarded headers (from a trusted proxy when any), https base URL, cross-origin.
    type Case = (&'static str, &'static str, &'static [(&'static str, &'static str)], bool, bool);

    #[test]
    fn an_origin_is_the_dashboards_own_only_with_the_same_scheme_host_and_port() {
        let cases: [Case; 14] = [
            ("http://127.0.0.1:8080", "127.0.0.1:8080", &[], false, false),
            ("HTTP://Rental.Example", "rental.example:80", &[], false, false),
            ("https://rental.example", "rental.example", &[], true, false),
            ("http://[::1]:8080", "[::1]:8080", &[], false, false),
            (
                "https://rental.example",
                "127.0.0.1:8080",
                &[("x-forwarded-proto", "https"), ("x-forwarded-host", "rental.example")],
                false,
                false,
            ),
            ("http://evil.example", "rental.example", &[], false, true),
            ("http://rental.example:8081", "rental.example:8080", &[], false, true),
            ("http://rental.example", "rental.example", &[], true, true),
            ("https://rental.example", "rental.example", &[], false, true),
            ("null", "rental.example", &[], false, true),
            ("http://rental.example/path", "rental.example", &[], false, true),
            ("http://user@rental.example", "rental.example", &[], false, true),
            ("ftp://rental.example", "rental.example", &[], false, true),
            ("http://rental.example:99999", "rental.example:99999", &[], false, true),
        ];
        for (origin, host, forwarded, https, cross) in cases {
            assert_eq!(arrival_is_cross(origin, host, forwarded, https), cross, "{origin} to {host} {forwarded:?}");
        }
    }

    #[test]
    fn forwarded_headers_count_only_from_a_trusted_proxy() {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ORIGIN, "https://evil.example".parse().unwrap());
        headers.insert(http::header::HOST, "rental.example".parse().unwrap());
        headers.insert("x-forwarded-host", "evil.example".parse().unwrap());
        headers.insert("x-forwarded-proto", "https".parse().unwrap());
        let proxies: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        let arrival =
            Arrival { headers: &headers, peer: "192.0.2.1".parse().unwrap(), proxies: &proxies, https: false };
        assert!(arrival.is_cross_origin());
    }

    #[test]
    fn a_post_without_origin_is_left_to_the_csrf_token() {
        let headers = HeaderMap::new();
        let proxies = TrustedProxies::default();
        let arrival =
            Arrival { headers: &headers, peer: "192.0.2.1".parse().unwrap(), proxies: &proxies, https: false };
        assert!(!arrival.is_cross_origin());
    }
}
