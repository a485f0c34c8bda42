//! A property's booking page (docs/API.md section 20): whether guests may ask
//! to book it at `/book/{slug}`, and which sites may frame that page.

use serde::{Deserialize, Serialize};

/// The most sites one page may be framed by.
pub const MAX_EMBED_ORIGINS: usize = 20;

/// The booking page settings of a property; off by default.
///
/// ```
/// use rental_core::BookingPage;
///
/// let page = BookingPage::default().enable().embed_origin("https://example.com");
/// assert!(page.enabled && page.allows("https://example.com"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BookingPage {
    /// Guests can see the page and ask to book.
    #[serde(default)]
    pub enabled: bool,
    /// Sites allowed to frame the page, as origins: `https://example.com` or
    /// `http://host:8080`, lower case, no path.
    #[serde(default)]
    #[cfg_attr(feature = "schemars", schemars(length(max = 20)))]
    pub embed_origins: Vec<String>,
}

impl BookingPage {
    /// Lets guests see the page and ask to book.
    #[must_use]
    pub fn enable(mut self) -> Self {
        self.enabled = true;
        self
    }

    /// Lets `origin` (`https://example.com`) frame the page.
    #[must_use]
    pub fn embed_origin(mut self, origin: impl Into<String>) -> Self {
        self.embed_origins.push(origin.into());
        self
    }

    /// True when `origin` is one of the sites allowed to frame the page.
    pub fn allows(&self, origin: &str) -> bool {
        self.embed_origins.iter().any(|o| o == origin)
    }

    /// Why the settings cannot be kept, if they cannot: `(field, message)`.
    pub fn fault(&self) -> Option<(&'static str, String)> {
        if self.embed_origins.len() > MAX_EMBED_ORIGINS {
            return Some(("bookingPage.embedOrigins", format!("at most {MAX_EMBED_ORIGINS} origins")));
        }
        if let Some(bad) = self.embed_origins.iter().find(|o| !is_origin(o)) {
            let message = format!("{bad:?} is not an origin like https://example.com (lower case, no path)");
            return Some(("bookingPage.embedOrigins", message));
        }
        let mut sorted: Vec<&String> = self.embed_origins.iter().collect();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Some(("bookingPage.embedOrigins", "each origin only once".to_owned()));
        }
        None
    }
}

/// True for `http://` or `https://`, a lower-case host name (or IPv4 address)
/// and an optional port: what a browser sends as a site's origin.
pub fn is_origin(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("https://").or_else(|| s.strip_prefix("http://")) else { return false };
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    let port_ok = port.is_none_or(|p| {
        (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok_and(|n| n > 0)
    });
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    port_ok && (1..=253).contains(&host.len()) && host.split('.').all(label_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_a_scheme_a_host_and_perhaps_a_port() {
        let cases = [
            ("https://example.com", true),
            ("http://localhost:8080", true),
            ("http://127.0.0.1:3000", true),
            ("https://www.my-cottage.pt", true),
            ("https://example.com/", false),
            ("https://example.com/book", false),
            ("https://Example.com", false),
            ("ftp://example.com", false),
            ("example.com", false),
            ("https://", false),
            ("https://example.com:0", false),
            ("https://example.com:99999", false),
            ("https://exa mple.com", false),
            ("https://example.com; script-src *", false),
            ("https://*.example.com", false),
            ("https://-bad.com", false),
            ("https://a..b", false),
        ];
        for (origin, ok) in cases {
            assert_eq!(is_origin(origin), ok, "{origin}");
        }
    }

    #[test]
    fn a_bad_or_repeated_origin_is_a_fault() {
        let page =
            |o: &[&str]| BookingPage { enabled: true, embed_origins: o.iter().map(|s| (*s).to_owned()).collect() };
        assert_eq!(page(&["https://a.com", "https://b.com"]).fault(), None);
        assert!(page(&["https://a.com/x"]).fault().is_some());
        assert!(page(&["https://a.com", "https://a.com"]).fault().is_some());
        assert!(page(&["https://a.com"; 21]).fault().is_some());
        assert!(page(&["https://a.com"]).allows("https://a.com"));
        assert!(!page(&["https://a.com"]).allows("https://b.com"));
    }
}
