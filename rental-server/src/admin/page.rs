//! The page shell every admin page shares (head, inline CSS, navigation,
//! the one-time message, a little plain JS), and the responses that carry it.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use rental_core::clock::{Entropy, OsEntropy};

use super::session::{Flash, Session};

/// A finished admin response.
pub type Page = Response<Full<Bytes>>;

/// The sections of the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// `/admin`.
    Today,
    /// `/admin/api-keys`.
    Keys,
    /// `/admin/webhooks`.
    Webhooks,
    /// `/admin/calendar`.
    Calendar,
    /// `/admin/bookings`.
    Bookings,
    /// `/admin/properties`.
    Properties,
}

impl Section {
    const ALL: [(Section, &'static str, &'static str); 6] = [
        (Section::Today, "/admin", "Today"),
        (Section::Calendar, "/admin/calendar", "Calendar"),
        (Section::Bookings, "/admin/bookings", "Bookings"),
        (Section::Keys, "/admin/api-keys", "API keys"),
        (Section::Webhooks, "/admin/webhooks", "Webhooks"),
        (Section::Properties, "/admin/properties", "Properties"),
    ];
}

const CSS: &str = r"
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;background:#f6f7f9}
header{background:#17324d;color:#fff}
.bar{max-width:1100px;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem}
.brand{font-weight:700;margin-right:auto;color:#fff;text-decoration:none}
nav a{color:#cfe0f3;text-decoration:none;padding:.35rem .55rem;border-radius:6px}
nav a[aria-current]{background:#2c5282;color:#fff}
header form{margin:0}
main{max-width:1100px;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.4rem 0 1rem}
h2{font-size:1.1rem;margin:0 0 .6rem}
.card{background:#fff;border:1px solid #d8dee4;border-radius:10px;padding:1rem;margin:0 0 1rem}
.muted{color:#59636e;font-size:.9rem}
.paragraphs{white-space:pre-line}
.flash{padding:.75rem 1rem;border-radius:8px;margin:0 0 1rem;border:1px solid #9ad29e;background:#e9f7ea}
.flash.error{border-color:#e5a3a3;background:#fdecec}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.5rem}
code{font:14px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef1f4;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
.table{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #e6e9ec;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#59636e}
form.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.4rem}
label{display:block;font-weight:600;margin:.5rem 0 .2rem}
label.check{display:inline-flex;gap:.35rem;font-weight:400;margin:.2rem 1rem .2rem 0;align-items:center}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:0 .8rem;max-width:50rem}
input[type=date],input[type=number],select{padding:.45rem .5rem;font-size:1rem;border:1px solid #b8c0c8;border-radius:6px;max-width:100%}
input[type=text],input[type=url],input[type=password]{width:100%;max-width:32rem;padding:.5rem .6rem;font-size:1rem;border:1px solid #b8c0c8;border-radius:6px}
button{font-size:.95rem;padding:.45rem .8rem;border-radius:6px;border:1px solid #2c5282;background:#2c5282;color:#fff;cursor:pointer}
button.quiet{background:#fff;color:#2c5282}
button.danger{background:#fff;color:#b42318;border-color:#b42318}
.badge{display:inline-block;font-size:.8rem;padding:.05rem .45rem;border-radius:99px;background:#eef1f4}
.badge.ok{background:#e9f7ea;color:#1a7f37}.badge.bad{background:#fdecec;color:#b42318}.badge.wait{background:#fff4e0;color:#9a6700}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.3rem 0 .8rem}dt{color:#59636e}dd{margin:0}
@media (max-width:600px){.bar{padding:.5rem .75rem}main{padding:.75rem}
table,tbody,tr,td{display:block;width:100%}thead{display:none}
tr{border-bottom:1px solid #e6e9ec;padding:.5rem 0}td{border:0;padding:.15rem 0}td:empty{display:none}}
";

/// Asks before a form marked `data-confirm` is sent; copies the text of `data-copy`'s target.
const JS: &str = r"
document.querySelectorAll('form[data-confirm]').forEach(function(f){f.addEventListener('submit',function(e){if(!window.confirm(f.dataset.confirm)){e.preventDefault();}});});
function selectAndCopy(el){var r=document.createRange();r.selectNodeContents(el);var s=window.getSelection();s.removeAllRanges();s.addRange(r);try{return document.execCommand('copy');}catch(e){return false;}}
document.querySelectorAll('button[data-copy]').forEach(function(b){b.addEventListener('click',function(){var el=document.getElementById(b.dataset.copy);var fallback=function(){b.textContent=selectAndCopy(el)?'Copied':'Selected: press Ctrl+C';};if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(el.textContent).then(function(){b.textContent='Copied';},fallback);}else{fallback();}});});
";

/// A whole page: `section` and `session` are `None` on the login page.
pub fn shell(title: &str, section: Option<Section>, session: Option<&Session>, body: &Markup) -> Page {
    let nonce = token(16);
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · rental admin" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    div.bar {
                        a.brand href="/admin" { "rental admin" }
                        @if let Some(session) = session {
                            nav {
                                @for (s, href, label) in Section::ALL {
                                    @if Some(s) == section { a href=(href) aria-current="page" { (label) } }
                                    @else { a href=(href) { (label) } }
                                }
                            }
                            form method="post" action="/admin/logout" {
                                (csrf_field(session))
                                button.quiet type="submit" { "Log out" }
                            }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    @if let Some(flash) = session.and_then(|s| s.flash.as_ref()) { (flash_box(flash)) }
                    (body)
                }
                script nonce=(nonce) { (PreEscaped(JS)) }
            }
        }
    };
    respond(StatusCode::OK, &nonce, markup.into_string())
}

/// The hidden CSRF field every form of a session carries.
pub fn csrf_field(session: &Session) -> Markup {
    html! { input type="hidden" name="_csrf" value=(session.csrf); }
}

/// A one-button form that posts to `action`, asking `confirm` first when given.
pub fn button_form(session: &Session, action: &str, label: &str, class: &str, confirm: Option<&str>) -> Markup {
    html! {
        form.inline method="post" action=(action) data-confirm=[confirm] {
            (csrf_field(session))
            button class=(class) type="submit" { (label) }
        }
    }
}

fn flash_box(flash: &Flash) -> Markup {
    html! {
        div.flash.error[flash.error] role="status" {
            (flash.message)
            @if let Some((label, value)) = &flash.secret {
                div.secret {
                    strong { (label) }
                    code #secret { (value) }
                    button.quiet type="button" data-copy="secret" { "Copy" }
                }
                div.muted { "Copy it now: it is not shown again." }
            }
        }
    }
}

/// `2026-11-22 13:45 UTC`.
pub fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// An HTML response with the headers every admin page has.
pub fn respond(status: StatusCode, nonce: &str, body: String) -> Page {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; img-src 'self'; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    );
    if let Ok(csp) = HeaderValue::from_str(&csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response
}

/// A short page with a status: refusals and errors.
pub fn message(status: StatusCode, title: &str, text: &str) -> Page {
    let mut page = shell(
        title,
        None,
        None,
        &html! { div.card { p { (text) } p { a href="/admin" { "Back to the dashboard" } } } },
    );
    *page.status_mut() = status;
    page
}

/// `303 See Other` to `location`, or to the dashboard's home when `location`
/// cannot be a header value (so a 303 never goes out without a `Location`).
pub fn redirect(location: &str) -> Page {
    let mut response = respond(StatusCode::SEE_OTHER, "none", String::new());
    let location = HeaderValue::from_str(location).unwrap_or(HeaderValue::from_static("/admin"));
    response.headers_mut().insert(header::LOCATION, location);
    response
}

/// `candidate` when it is a path of the dashboard's own: `/admin`, `/admin/...` or
/// `/admin?...`, in visible ASCII (no line break, space or backslash can get into a header).
pub fn dashboard_path(candidate: &str) -> Option<&str> {
    let rest = candidate.strip_prefix("/admin")?;
    let inside = rest.is_empty() || rest.starts_with('/') || rest.starts_with('?');
    let visible = candidate.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    (inside && visible && !rest.starts_with("//")).then_some(candidate)
}

/// `bytes` random bytes in hex.
fn token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    OsEntropy.fill(&mut buf);
    hex::encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_visible_paths_of_the_dashboard_are_followed_back() {
        for ok in ["/admin", "/admin/calendar?from=2026-12-01&nights=14", "/admin?x=1"] {
            assert_eq!(dashboard_path(ok), Some(ok));
        }
        for bad in [
            "/admin/x\r\nSet-Cookie: a=b",
            "/admin//evil.example",
            "/adminx",
            "https://evil.example/admin",
            "//evil.example",
            "/admin/\\evil",
            "/admin/a b",
            "/admin/\u{e9}",
            "",
        ] {
            assert_eq!(dashboard_path(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_redirect_always_carries_a_location() {
        let page = redirect("/admin/x\r\ny");
        assert_eq!(page.headers().get(header::LOCATION).unwrap(), "/admin");
    }

    #[test]
    fn text_is_escaped_in_pages() {
        let page = html! { p { ("<script>alert(1)</script>") } }.into_string();
        assert_eq!(page, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
    }
}
