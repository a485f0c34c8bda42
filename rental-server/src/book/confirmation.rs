//! The page a guest lands on after asking to book: the code, the stay, the
//! total, what happens next and the way to the stay page. Its address holds a
//! signed token, not the code alone.

use maud::{Markup, html};
use rental_core::verification;
use rental_core::{Booking, Locale, Property, Status};

use crate::lang::words;

/// The confirmation's `main` in the booking's language; `property` gives the
/// arrival and departure times when it is still listed; `stay` is the path of
/// the booking's stay page.
pub fn render(b: &Booking, property: Option<&Property>, back: &str, stay: &str) -> Markup {
    let (l, w) = (b.locale, words(b.locale));
    let (arrive, leave) = match property {
        Some(p) => (
            (w.from_time)(&l.time(p.stay_rules.check_in_time, p.timezone)),
            (w.by_time)(&l.time(p.stay_rules.check_out_time, p.timezone)),
        ),
        None => (String::new(), String::new()),
    };
    let [where_, name, nights, total] = w.where_name_nights_total;
    let (before, link, after) = w.stay_page_link;
    html! {
        main.page #book {
            h1 { (title(b.status, l)) }
            div.box {
                p { (w.request_code.0) strong #code { (b.code) } (w.request_code.1) }
                dl {
                    dt { (where_) } dd { (b.property_name) }
                    dt { (w.check_in) } dd { (l.short_date(b.stay.check_in())) (arrive) }
                    dt { (w.check_out) } dd { (l.short_date(b.stay.check_out())) (leave) }
                    dt { (nights) } dd { (b.nights) }
                    dt { (w.guests) } dd { (b.guests) }
                    dt { (name) } dd { (b.guest_name) }
                    dt { (total) } dd #total { (l.money(b.total, &b.currency)) }
                }
            }
            section.box aria-labelledby="next-title" {
                h2 #next-title { (w.what_next) }
                @match b.status {
                    Status::Pending if !verification::is_verified(b) => p #verify {
                        ((w.verify_email)(&b.guest_email, rental_core::verification::UNVERIFIED_HOLD.num_minutes()))
                    },
                    Status::Pending => p { ((w.held_for_you)(&b.guest_email)) },
                    Status::Confirmed => p { ((w.see_you_on)(&l.short_date(b.stay.check_in()))) },
                    Status::Cancelled => p { (w.request_closed) },
                }
                p {
                    (before)
                    // Out of any frame: the stay page is never framed.
                    a #stay-link href=(stay) target="_top" { (link) } (after)
                }
                p { a href=(back) { ((w.back_to)(&b.property_name)) } }
            }
        }
    }
}

/// The heading for a request in `status`, in `lang`.
pub fn title(status: Status, lang: Locale) -> &'static str {
    let [pending, confirmed, cancelled] = words(lang).request_titles;
    match status {
        Status::Pending => pending,
        Status::Confirmed => confirmed,
        Status::Cancelled => cancelled,
    }
}
