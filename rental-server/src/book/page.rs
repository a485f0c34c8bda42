//! The shell every booking page shares (head, inline CSS and script, the data
//! the script reads), the response headers, and money and dates for guests.

use bytes::Bytes;

use chrono::NaiveDate;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use maud::{DOCTYPE, Markup, PreEscaped, Render, html};
use rental_core::Locale;
use rental_core::booking_page::BookingPage;
use rental_core::clock::{Entropy, OsEntropy};

use super::embed::content_security_policy;

/// A finished booking-page response.
pub type Page = Response<Full<Bytes>>;

pub(crate) const CSS: &str = r"
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;background:#fff}
.page{max-width:980px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.2rem 0 .6rem}h2{font-size:1.1rem;margin:1rem 0 .5rem}
a{color:#1d4f91}
.rules{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;padding:0;margin:0 0 .5rem;list-style:none;color:#3d444d}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:0 1.5rem}
@media (max-width:760px){.cols{grid-template-columns:minmax(0,1fr)}}
.months{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:.8rem}
.nav{display:flex;justify-content:space-between;margin:.2rem 0 .4rem}
table.cal{border-collapse:collapse;width:100%;table-layout:fixed}
.cal caption{font-weight:600;text-align:left;padding:.2rem 0}
.cal th{font-size:.75rem;color:#59636e;font-weight:600;padding:.2rem 0}
.cal td{padding:1px;text-align:center;vertical-align:top}
.day{display:block;border-radius:6px;padding:.2rem 0;min-height:2.7rem;font-size:.95rem;text-decoration:none;color:#1f2328;border:1px solid transparent}
.day small{display:block;font-size:.68rem;color:#3d444d}
a.day{background:#e8f3ec;border-color:#9fd0b0}a.day:hover,a.day:focus{outline:3px solid #1d4f91;outline-offset:0}
.day.taken{background:#eceef1;color:#4b535c;text-decoration:line-through}.day.taken small{text-decoration:none;color:#4b535c}
.day.closed{color:#59636e}.day.past{color:#59636e}
.day.chosen{background:#1d4f91;color:#fff;border-color:#1d4f91}.day.chosen small{color:#fff}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.85rem;color:#3d444d;margin:.4rem 0}
.legend span::before{content:'';display:inline-block;width:.8rem;height:.8rem;border-radius:3px;margin-right:.3rem;vertical-align:-1px;border:1px solid #9fd0b0;background:#e8f3ec}
.legend .l-taken::before{background:#f0f1f3;border-color:#d0d7de}.legend .l-closed::before{background:#fff;border-color:#d0d7de}
.legend .l-chosen::before{background:#1d4f91;border-color:#1d4f91}
.box{border:1px solid #d0d7de;border-radius:10px;padding:.8rem 1rem;margin:0 0 1rem}
.price{width:100%;border-collapse:collapse}.price td{padding:.15rem 0}.price td+td{text-align:right}
.price .total td{border-top:1px solid #d0d7de;font-weight:700;padding-top:.35rem}
details.nights{font-size:.9rem;margin:.2rem 0}
label{display:block;font-weight:600;margin:.5rem 0 .2rem}
input,select,textarea{font:inherit;padding:.45rem .5rem;border:1px solid #8c959f;border-radius:6px;width:100%;max-width:28rem}
.row{display:flex;flex-wrap:wrap;gap:0 .8rem}.row>div{flex:1 1 8rem}
button{font:inherit;font-weight:600;padding:.55rem 1rem;border-radius:8px;border:1px solid #1d4f91;background:#1d4f91;color:#fff;cursor:pointer;margin-top:.7rem}
button.quiet{background:#fff;color:#1d4f91}
.err{color:#b42318;font-size:.88rem;margin:.15rem 0 0}
.alert{border:1px solid #e5a3a3;background:#fdecec;border-radius:8px;padding:.6rem .8rem;margin:.4rem 0}
.alert ul{margin:.2rem 0 0;padding-left:1.2rem}
.hint{color:#3d444d;margin:.2rem 0}.muted{color:#59636e;font-size:.9rem}
.hp{display:none}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
";

/// Sizes a framed page for its parent and picks nights without reloading:
/// calendar links and the stay form fetch the next page and swap it in.
/// Day and month links carry the guests chosen in the select (which may not
/// be in their address yet); a request whose stay form shows other dates
/// than the quote's is re-quoted instead of sent, keeping what was typed;
/// on narrow screens the second pick moves focus to the quote (in a frame,
/// the parent scrolls to it once the frame has grown to the new page, as
/// the layout, and so the quote's place, changes with the frame's size).
const JS: &str = r"(function(){
var b=document.body,embed=b.getAttribute('data-embed'),live=document.getElementById('live'),framed=embed&&window.parent!==window,loads=0;
function height(){if(framed){parent.postMessage({type:'rental:height',height:Math.ceil(b.getBoundingClientRect().height)},embed);}}
function show(el){if(!framed){el.scrollIntoView({block:'start'});return;}var n=0;
(function post(){if(window.innerHeight<Math.ceil(b.getBoundingClientRect().height)&&n++<60){requestAnimationFrame(post);return;}
parent.postMessage({type:'rental:show',top:Math.max(0,Math.floor(el.getBoundingClientRect().top+window.scrollY)-8)},embed);})();}
function narrow(){return window.matchMedia('(max-width:760px)').matches;}
if(framed){height();if(window.ResizeObserver){new ResizeObserver(height).observe(b);}
var code=b.getAttribute('data-requested');if(code){parent.postMessage({type:'rental:requested',code:code},embed);}}
var root=document.getElementById('book');if(!root||!window.fetch||!window.DOMParser){return;}
var TYPED=['guestName','guestEmail','notes'];
function load(url,focus,typed){
var seq=++loads;root.setAttribute('aria-busy','true');
fetch(url,{credentials:'same-origin'}).then(function(r){return r.text();}).then(function(text){
if(seq!==loads){return;}
var next=new DOMParser().parseFromString(text,'text/html').getElementById('book');
if(!next){location.href=url;return;}
root.replaceWith(next);root=next;history.replaceState(null,'',url);bind();
var hint=root.querySelector('#hint'),say=hint&&hint.textContent,req=root.querySelector('#request');
if(typed&&req){TYPED.forEach(function(n){if(req.elements[n]){req.elements[n].value=typed[n];}});
var note=document.createElement('div');note.className='alert';note.setAttribute('role','alert');note.id='requoted';
note.textContent=say='The dates changed, so your request was not sent. Here is the price for the new dates: check it and send your request again.';
var h=req.querySelector('h2');req.insertBefore(note,h?h.nextSibling:req.firstChild);}
if(live&&say){live.textContent=say;}
height();
var el=(focus&&root.querySelector(focus))||root.querySelector('#quote-title')||root.querySelector('#hint');
if(el){if(el.tagName!=='A'&&el.tagName!=='SELECT'&&el.tagName!=='INPUT'){el.setAttribute('tabindex','-1');}el.focus();if(el.id==='quote-title'&&(framed||narrow())){show(el);}}
}).catch(function(){location.href=url;});}
function guests(href){var g=root.querySelector('#guests'),u=new URL(href,location.href);if(g&&u.searchParams.has('guests')){u.searchParams.set('guests',g.value);}return u;}
function bind(){
root.querySelectorAll('a[data-date],a[data-nav]').forEach(function(a){a.addEventListener('click',function(e){
e.preventDefault();var u=guests(a.href),d=a.getAttribute('data-date');
var focus=d?(u.searchParams.get('checkOut')&&narrow()?'#quote-title':'a[data-date=\''+d+'\']'):'a[data-nav=\''+a.getAttribute('data-nav')+'\']';
load(u.href,focus);});});
var f=root.querySelector('#stay'),r=root.querySelector('#request');
function query(){return f.action+'?'+new URLSearchParams(new FormData(f)).toString();}
if(f){f.addEventListener('submit',function(e){e.preventDefault();load(query());});
var g=f.querySelector('select');if(g){g.addEventListener('change',function(){if(f.checkIn.value&&f.checkOut.value){load(query(),'#'+g.id);}});}}
if(f&&r){r.addEventListener('submit',function(e){
if(f.checkIn.value===r.elements.checkIn.value&&f.checkOut.value===r.elements.checkOut.value&&f.guests.value===r.elements.guests.value){return;}
e.preventDefault();var typed={};TYPED.forEach(function(n){typed[n]=r.elements[n]?r.elements[n].value:'';});load(query(),'#quote-title',typed);});}
}
bind();
})();";

/// What the shell needs besides the body.
#[derive(Debug, Clone, Copy, Default)]
pub struct Frame<'a> {
    /// The property's page settings: who may frame it (none on a page of no property).
    pub settings: Option<&'a BookingPage>,
    /// The allowed origin of the site framing the page, which the script talks to.
    pub embed: Option<&'a str>,
    /// A booking code to announce to that site (on the confirmation).
    pub requested: Option<&'a str>,
    /// The page's language (`<html lang>`).
    pub lang: Locale,
}

/// A whole page titled `title`, with `body` inside `main`.
pub fn shell(status: StatusCode, title: &str, frame: Frame<'_>, body: &Markup) -> Page {
    let nonce = nonce();
    let markup = html! {
        (DOCTYPE)
        html lang=(frame.lang.as_str()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="same-origin";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body data-embed=[frame.embed] data-requested=[frame.requested] {
                (body)
                p #live.sr role="status" aria-live="polite" {}
                script nonce=(nonce) { (PreEscaped(JS)) }
            }
        }
    };
    respond(status, &content_security_policy(&nonce, frame.settings), "text/html; charset=utf-8", markup.into_string())
}

/// A short page: an error or a refusal, in words.
pub fn message(status: StatusCode, title: &str, text: &str, frame: Frame<'_>) -> Page {
    shell(status, title, frame, &html! { main.page { h1 { (title) } p { (text) } } })
}

/// A response with the headers every booking page has. No `X-Frame-Options`:
/// the policy's `frame-ancestors` decides who may frame the page.
pub fn respond(status: StatusCode, csp: &str, content_type: &'static str, body: String) -> Page {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if let Ok(csp) = HeaderValue::from_str(csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response
}

/// `303 See Other` to `location`.
pub fn see_other(location: &str) -> Page {
    let mut response = respond(StatusCode::SEE_OTHER, "default-src 'none'", "text/html; charset=utf-8", String::new());
    if let Ok(location) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// 16 random bytes in hex, for nonces and form tokens.
pub fn random_hex() -> String {
    let mut buf = [0u8; 16];
    OsEntropy.fill(&mut buf);
    hex::encode(buf)
}

fn nonce() -> String {
    random_hex()
}

/// An amount in the property's currency ([`rental_core::format_amount`]):
/// `$1,342.88`, `€1,342.88`, `¥134,288`, `1,342.88 CHF`.
pub fn money(amount: i64, currency: &str) -> String {
    rental_core::format_amount(amount, currency)
}

/// A nightly price for a calendar cell: whole amounts without their zero
/// decimals (`$150`, `€150`, `¥15,000`; in German `150 €`).
pub fn short_money(lang: Locale, amount: i64, currency: &str) -> String {
    let full = lang.money(amount, currency);
    let exponent = rental_core::Currency::find(currency).map_or(2, |c| c.exponent);
    let point = if lang == Locale::De { ',' } else { '.' };
    let zeros = format!("{point}{}", "0".repeat(usize::from(exponent)));
    if exponent > 0 && full.contains(&zeros) { full.replacen(&zeros, "", 1) } else { full }
}

/// `Sun 20 Dec 2026` (the admin's and the English pages' way).
pub fn day(date: NaiveDate) -> String {
    Locale::En.short_date(date)
}

/// `Sunday 20 December 2026`, for screen readers.
pub fn long_day(date: NaiveDate) -> String {
    Locale::En.long_date(date)
}

/// `December 2026`.
pub fn month_year(date: NaiveDate) -> String {
    Locale::En.month_year(date)
}

/// A date in a guest's words and language, rendered into a page without a
/// `String` of its own (its words need no escaping).
#[derive(Debug, Clone, Copy)]
pub struct LongDay(pub NaiveDate, pub Locale);

impl Render for LongDay {
    fn render_to(&self, out: &mut String) {
        self.1.write_date(out, self.0, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_written_in_the_property_s_currency() {
        assert_eq!(money(134_288, "USD"), "$1,342.88");
        assert_eq!(money(134_288, "EUR"), "€1,342.88");
        assert_eq!(money(134_288, "SEK"), "1,342.88 SEK");
        assert_eq!(short_money(Locale::En, 15_000, "JPY"), "¥15,000");
        assert_eq!(short_money(Locale::En, 15_000, "EUR"), "€150");
        assert_eq!(short_money(Locale::En, 15_000, "USD"), "$150");
        assert_eq!(short_money(Locale::En, 15_050, "USD"), "$150.50");
        assert_eq!(short_money(Locale::De, 15_000, "EUR"), "150 €");
        assert_eq!(short_money(Locale::De, 15_050, "EUR"), "150,50 €");
    }

    #[test]
    fn dates_read_as_chrono_would_write_them() {
        let mut date = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        for _ in 0..800 {
            assert_eq!(day(date), date.format("%a %-d %b %Y").to_string());
            assert_eq!(long_day(date), date.format("%A %-d %B %Y").to_string());
            assert_eq!(month_year(date), date.format("%B %Y").to_string());
            date = date.succ_opt().unwrap();
        }
    }

    #[test]
    fn pages_are_framed_only_where_allowed_and_never_denied_outright() {
        let page = message(StatusCode::NOT_FOUND, "Not found", "x", Frame::default());
        assert!(page.headers().get(header::X_FRAME_OPTIONS).is_none());
        let csp = page.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'self';"), "{csp}");
    }
}
