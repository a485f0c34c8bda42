//! Framing the page on another site: `GET /book/embed.js`, the origin a framed
//! page may talk to, and the `Content-Security-Policy` that says who may frame it.

use rental_core::booking_page::{BookingPage, is_origin};

/// `GET /book/embed.js`: turns each `<div data-rental-property="slug">` into a
/// frame of that property's page, sized to its content. It tells the page the
/// site's origin (`embed=`); the page answers with its height (and, after a
/// pick on a narrow screen, where its quote is), and the frame takes these
/// from the page's own origin only. When the framed page changes (after a
/// request, the confirmation) and the frame's top is above the window, the
/// site scrolls back to it: the guest would otherwise face the frame's empty end.
pub const SCRIPT: &str = r"(function(){
var me=document.currentScript;if(!me){return;}
var src=new URL(me.src),base=src.origin,root=base+src.pathname.replace(/\/book\/embed\.js$/,'');
function frame(div){
if(div.getAttribute('data-rental-ready')){return;}
div.setAttribute('data-rental-ready','1');
var f=document.createElement('iframe');
f.src=root+'/book/'+encodeURIComponent(div.getAttribute('data-rental-property'))+'?embed='+encodeURIComponent(location.origin);
f.title=div.getAttribute('data-rental-title')||'Book your stay';
f.style.cssText='display:block;width:100%;height:640px;border:0';
div.appendChild(f);
window.addEventListener('message',function(e){
if(e.origin!==base||e.source!==f.contentWindow){return;}
var d=e.data;
if(d&&d.type==='rental:height'&&typeof d.height==='number'&&d.height>0&&d.height<100000){f.style.height=Math.ceil(d.height)+'px';}
if(d&&d.type==='rental:show'&&typeof d.top==='number'&&d.top>=0&&d.top<100000){window.scrollTo(0,window.scrollY+f.getBoundingClientRect().top+d.top);}
});
var loaded=false;
f.addEventListener('load',function(){if(loaded&&f.getBoundingClientRect().top<0){f.scrollIntoView({block:'start'});}loaded=true;});
}
function all(){document.querySelectorAll('div[data-rental-property]').forEach(frame);}
if(document.readyState==='loading'){document.addEventListener('DOMContentLoaded',all);}else{all();}
})();
";

/// The origin of the site framing the page, when it is one the host allowed:
/// only then does the page post messages to it (never to `*`).
pub fn allowed_origin<'a>(page: &BookingPage, given: &'a str) -> Option<&'a str> {
    (is_origin(given) && page.allows(given)).then_some(given)
}

/// The page's policy: nothing from another host, scripts only with this
/// response's `nonce`, forms only to this server, framed only by this server
/// and the allowed sites.
pub fn content_security_policy(nonce: &str, page: Option<&BookingPage>) -> String {
    let mut ancestors = String::from("'self'");
    for origin in page.map(|p| p.embed_origins.as_slice()).unwrap_or_default() {
        // Checked when saved; checked again, as a policy is no place for a stray `;`.
        if is_origin(origin) {
            ancestors.push(' ');
            ancestors.push_str(origin);
        }
    }
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; img-src 'self'; \
         connect-src 'self'; form-action 'self'; frame-ancestors {ancestors}; base-uri 'none'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(origins: &[&str]) -> BookingPage {
        origins.iter().fold(BookingPage::default().enable(), |page, o| page.embed_origin(*o))
    }

    #[test]
    fn frame_ancestors_are_self_and_the_allowed_sites() {
        let csp = content_security_policy("n1", Some(&page(&["https://a.example", "http://localhost:8000"])));
        assert!(csp.contains("frame-ancestors 'self' https://a.example http://localhost:8000;"), "{csp}");
        assert!(csp.contains("script-src 'nonce-n1'"));
        assert!(content_security_policy("n", None).contains("frame-ancestors 'self';"));
    }

    #[test]
    fn only_an_allowed_origin_is_talked_to() {
        let p = page(&["https://a.example"]);
        assert_eq!(allowed_origin(&p, "https://a.example"), Some("https://a.example"));
        assert_eq!(allowed_origin(&p, "https://b.example"), None);
        assert_eq!(allowed_origin(&p, "*"), None);
        assert_eq!(allowed_origin(&p, ""), None);
    }
}
