//! The URL of a call and of each redirect hop: parsed into scheme, host and
//! port ([`Target`]), and a `Location` resolved against the URL it came from.

use http::header::LOCATION;
use http::{Response, Uri};
use hyper::body::Incoming;

use super::error::{OutboundError, invalid};

/// A parsed, absolute `http`/`https` URL.
#[derive(Debug)]
pub(super) struct Target {
    pub(super) uri: Uri,
    pub(super) https: bool,
    /// Without the brackets of an IPv6 literal.
    pub(super) host: String,
    pub(super) port: u16,
    /// `host[:port]` as written, for the `Host` header.
    pub(super) authority: String,
}

impl Target {
    pub(super) fn parse(url: &str) -> Result<Target, OutboundError> {
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

    pub(super) fn same_origin(&self, other: &Target) -> bool {
        self.https == other.https && self.port == other.port && self.host.eq_ignore_ascii_case(&other.host)
    }
}

/// Where a response redirects to, if it is a redirect the call follows.
pub(super) fn redirect_to(response: &Response<Incoming>, max_redirects: u8) -> Result<Option<&str>, OutboundError> {
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
pub(super) fn resolve_location(base: &Uri, location: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
