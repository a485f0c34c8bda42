//! Cancelling from the stay page in two steps (docs/API.md section 24): the
//! page offers it with the refund the policy gives now; the guest reviews it
//! on a page of its own and confirms with a signed form; the booking is then
//! cancelled `by` `guest`, as `PATCH /api/v1/bookings/{code}` would.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::payments::refund::{Cancellation, kept, refund_share};
use rental_core::{Booking, Property, Status};

use crate::lang::words;

/// What cancelling now gives back, by the property's cancellation policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// The share of the total refunded, in basis points.
    pub share: u32,
    /// That share of the total, in the booking's currency's minor unit.
    pub refund: i64,
}

/// The offer for `b` at `now`, or `None` when the page does not offer to
/// cancel: a channel's booking, one cancelled or over, or a confirmed stay
/// whose policy gives nothing back (a request may always be withdrawn).
pub fn offer(b: &Booking, p: &Property, now: DateTime<Utc>) -> Option<Offer> {
    let over = now >= rental_core::message::timing::departure(p, b.check_out());
    if b.is_channel_owned() || b.status == Status::Cancelled || over {
        return None;
    }
    let cancellation = Cancellation { created_at: b.created_at, at: now, check_in: b.check_in(), timezone: p.timezone };
    let share = refund_share(&p.payments.cancellation_policy, &cancellation);
    let offer = Offer { share, refund: b.total - kept(b.total, share) };
    (b.status == Status::Pending || share > 0).then_some(offer)
}

/// The refund in words, in the booking's language.
pub fn wording(b: &Booking, offer: Offer) -> String {
    let w = words(b.locale);
    if b.status == Status::Pending {
        return w.withdraw_request.to_owned();
    }
    let percent = (f64::from(offer.share) / 100.0).to_string();
    let percent = if b.locale == rental_core::Locale::De { percent.replace('.', ",") } else { percent };
    (w.refund_now)(&percent, &b.locale.money(offer.refund, &b.currency))
}

/// The page's cancellation section: the terms and the way to the review step.
pub fn section(b: &Booking, offer: Option<Offer>, review: &str) -> Markup {
    let w = words(b.locale);
    html! {
        section.box #cancel aria-labelledby="cancel-title" {
            h2 #cancel-title { (w.cancelling) }
            @match offer {
                Some(offer) => {
                    p #refund { (wording(b, offer)) }
                    p { a href=(review) { (w.cancel_this_booking) } }
                }
                None if b.status == Status::Cancelled => p { (w.is_cancelled) },
                None => p { (w.nothing_back) },
            }
        }
    }
}

/// The review step: the refund first, then the button that cancels.
pub fn review(b: &Booking, offer: Offer, token: &str, back: &str, limited: Option<u64>) -> Markup {
    let (l, w) = (b.locale, words(b.locale));
    html! {
        main.page #stay {
            h1 { ((w.cancel_stay_at)(&b.property_name)) }
            @if let Some(wait) = limited {
                div.alert role="alert" { ((w.too_many_attempts)(wait.div_ceil(60))) }
            }
            section.box {
                p #refund { (wording(b, offer)) }
                p { ((w.booking_from_to)(b.code.as_str(), &l.short_date(b.check_in()), &l.short_date(b.check_out()))) }
                form method="post" {
                    input type="hidden" name="token" value=(token);
                    button type="submit" { (w.yes_cancel) }
                }
                p { a href=(back) { (w.no_keep) } }
            }
        }
    }
}
