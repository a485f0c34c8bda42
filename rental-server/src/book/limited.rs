//! The page of a request over the address's limit (429): what the guest typed
//! is kept in a form to send again later, with a link back to the calendar.

use http::{HeaderValue, StatusCode, header};
use maud::html;

use super::form::{Entered, HONEYPOT};
use super::page::{Frame, Page, shell};
use super::view::encode;

/// The 429 page for `entered`, posted to `slug`'s page; `retry_after` seconds to wait.
/// The form's token is the guest's own: it was not spent, and stays good for its lifetime.
pub fn page(slug: &str, entered: &Entered, frame: Frame<'_>, retry_after: u64) -> Page {
    let w = crate::lang::words(frame.lang);
    let [title, heading, again, back_words] = w.limited;
    let stay = (w.limited_stay)(entered.check_in.trim(), entered.check_out.trim(), entered.guests.trim());
    let body = html! {
        main.page #limited {
            h1 { (title) }
            div.alert role="alert" { ((w.limited_alert)(retry_after.div_ceil(60).max(1))) }
            form #request.box method="post" action=(format!("/book/{slug}")) aria-labelledby="request-title" {
                h2 #request-title { (heading) }
                p.muted { (stay) }
                input type="hidden" name="checkIn" value=(entered.check_in);
                input type="hidden" name="checkOut" value=(entered.check_out);
                input type="hidden" name="guests" value=(entered.guests);
                input type="hidden" name="token" value=(entered.token);
                @if let Some(embed) = frame.embed { input type="hidden" name="embed" value=(embed); }
                label for="guestName" { (w.your_name) }
                input #guestName type="text" name="guestName" value=(entered.guest_name) autocomplete="name" required maxlength="200";
                label for="guestEmail" { (w.your_email) }
                input #guestEmail type="email" name="guestEmail" value=(entered.guest_email) autocomplete="email" required maxlength="254";
                label for="notes" { (w.note_for_host) span.muted { (w.optional) } }
                textarea #notes name="notes" rows="3" maxlength="2000" { (entered.notes) }
                div.hp { label for=(HONEYPOT) { (w.leave_empty) } input id=(HONEYPOT) type="text" name=(HONEYPOT) tabindex="-1" autocomplete="off"; }
                button type="submit" { (again) }
            }
            p { a #back href=(back(slug, entered, frame.embed)) { (back_words) } }
        }
    };
    let mut page = shell(StatusCode::TOO_MANY_REQUESTS, title, frame, &body);
    if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
        page.headers_mut().insert(header::RETRY_AFTER, value);
    }
    page
}

/// The page of the stay the guest asked about, framed as it was.
fn back(slug: &str, e: &Entered, embed: Option<&str>) -> String {
    let mut url = format!("/book/{slug}");
    let params = [("checkIn", e.check_in.trim()), ("checkOut", e.check_out.trim()), ("guests", e.guests.trim())];
    let given = params.into_iter().filter(|(_, v)| !v.is_empty()).chain(embed.map(|e| ("embed", e)));
    for (i, (name, value)) in given.enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(name);
        url.push('=');
        url.push_str(&encode(value));
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_back_keeps_the_stay_and_the_framing_site() {
        let e = Entered {
            check_in: "2027-01-04".into(),
            check_out: "2027-01-08".into(),
            guests: "3".into(),
            ..Entered::default()
        };
        assert_eq!(
            back("sea-view", &e, Some("https://a.example")),
            "/book/sea-view?checkIn=2027-01-04&checkOut=2027-01-08&guests=3&embed=https%3A%2F%2Fa.example"
        );
        assert_eq!(back("sea-view", &Entered::default(), None), "/book/sea-view");
    }
}
