//! Cancelling from the stay page in two steps (docs/API.md section 24): the
//! page offers it with the refund a cancellation now gives, computed as the
//! cancellation computes it (`Worker::guest_refund_preview`); the guest reviews it
//! on a page of its own and confirms with a signed form; the booking is then
//! cancelled `by` `guest`, as `PATCH /api/v1/bookings/{code}` would.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::payments::refund::RefundPreview;
use rental_core::{Booking, Property, Status};

use crate::lang::words;

/// What cancelling now gives back: the policy's share for the wording, and
/// what the cancellation would refund of what was paid.
pub type Offer = RefundPreview;

/// True unless `b` is a channel's booking, cancelled or over at `now`.
fn open(b: &Booking, p: &Property, now: DateTime<Utc>) -> bool {
    let over = now >= rental_core::message::timing::departure(p, b.check_out());
    !(b.is_channel_owned() || b.status == Status::Cancelled || over)
}

/// The offer for `b` at `now` given what a cancellation now would refund, or
/// `None` when the page does not offer to cancel: a channel's booking, one
/// cancelled or over, or a confirmed stay whose policy gives nothing back (a
/// request may always be withdrawn).
pub fn offer(b: &Booking, p: &Property, now: DateTime<Utc>, refund: RefundPreview) -> Option<Offer> {
    (open(b, p, now) && (b.status == Status::Pending || refund.share > 0)).then_some(refund)
}

/// The refund in words, in the booking's language: what the guest gets back
/// of what they paid, and the policy's share that decides it.
pub fn wording(b: &Booking, offer: Offer) -> String {
    let w = words(b.locale);
    if b.status == Status::Pending {
        return w.withdraw_request.to_owned();
    }
    let percent = (f64::from(offer.share) / 100.0).to_string();
    let percent = if b.locale == rental_core::Locale::De { percent.replace('.', ",") } else { percent };
    let money = |amount| b.locale.money(amount, &b.currency);
    if offer.refundable == 0 {
        return (w.refund_nothing_paid)(&percent);
    }
    (w.refund_now)(&money(offer.refund), &money(offer.refundable), &percent)
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
