//! The shell of every stay page: the booking page's look (its CSS), no
//! script, and the headers of docs/API.md section 24 on every answer.

use http::{HeaderValue, StatusCode, header};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use rental_core::Locale;

use crate::book::page::{CSS, Page, respond};

/// What the stay page adds to the booking page's CSS.
const STAY_CSS: &str = r"
.status{display:inline-block;border-radius:999px;padding:.1rem .6rem;font-size:.85rem;font-weight:600;background:#eceef1}
.status.confirmed{background:#e8f3ec;color:#1a5d33}.status.pending{background:#fff4d6;color:#6b4a00}.status.cancelled{background:#fdecec;color:#8a1c12}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}dl.facts dt{color:#3d444d}dl.facts dd{margin:0}
.guide p{margin:.3rem 0 .6rem;overflow-wrap:anywhere}.code{font-size:1.6rem;font-weight:700;letter-spacing:.15em}
.notes{white-space:pre-line;overflow-wrap:anywhere}
";

/// The policy of a stay page: its own styles and forms, nothing else, and no frame.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; \
                      frame-ancestors 'none'; base-uri 'none'";

/// A whole stay page titled `title`, with `body` inside, in `lang`.
pub fn shell(lang: Locale, status: StatusCode, title: &str, body: &Markup) -> Page {
    shell_with_policy(lang, status, title, body, POLICY)
}

/// [`shell`] under another content security policy (the pay page lets the
/// provider's card form in).
pub fn shell_with_policy(lang: Locale, status: StatusCode, title: &str, body: &Markup, policy: &str) -> Page {
    let markup = html! {
        (DOCTYPE)
        html lang=(lang.as_str()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                meta name="robots" content="noindex, nofollow";
                title { (title) }
                style { (PreEscaped(CSS)) (PreEscaped(STAY_CSS)) }
            }
            body { (body) }
        }
    };
    private(respond(status, policy, "text/html; charset=utf-8", markup.into_string()))
}

/// The one answer to any link that is not a stay page's, whatever is wrong
/// with it: the same status, headers and bytes.
pub fn not_found() -> Page {
    let body = html! {
        main.page {
            h1 { "Page not found" }
            p { "There is no stay page at this address. Check the link you were sent, or ask your host for a new one." }
        }
    };
    shell(Locale::En, StatusCode::NOT_FOUND, "Page not found", &body)
}

/// The headers a private page adds to the booking page's: no referrer leaves
/// it (its address is the key to the stay), and no search engine keeps it.
pub fn private(mut page: Page) -> Page {
    let headers = page.headers_mut();
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert("x-robots-tag", HeaderValue::from_static("noindex, nofollow"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    page
}

/// The page of a store that cannot answer now (503), or of anything unexpected (500).
pub fn unavailable(problem: &crate::problem::Problem) -> Page {
    let (status, title, text) = if problem.status == StatusCode::SERVICE_UNAVAILABLE {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "Please try again",
            "Your stay page cannot be shown at this moment. Please try again in a minute.",
        )
    } else {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "Something went wrong on our side. Please try again later.",
        )
    };
    let mut page = shell(Locale::En, status, title, &html! { main.page { h1 { (title) } p { (text) } } });
    if status == StatusCode::SERVICE_UNAVAILABLE {
        page.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    page
}
