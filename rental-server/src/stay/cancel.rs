//! Cancelling from the stay page in two steps (docs/API.md section 24): the
//! page offers it with the refund the policy gives now; the guest reviews it
//! on a page of its own and confirms with a signed form; the booking is then
//! cancelled `by` `guest`, as `PATCH /api/v1/bookings/{code}` would.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::payments::refund::{Cancellation, kept, refund_share};
use rental_core::{Booking, Property, Status};

use crate::book::page::money;

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

/// The refund in words.
pub fn wording(b: &Booking, offer: Offer) -> String {
    if b.status == Status::Pending {
        return "This is still a request: withdrawing it frees its nights, and nothing more is charged.".to_owned();
    }
    let percent = f64::from(offer.share) / 100.0;
    format!(
        "If you cancel now, the cancellation policy gives back {percent}% of the total: {}.",
        money(offer.refund, &b.currency)
    )
}

/// The page's cancellation section: the terms and the way to the review step.
pub fn section(b: &Booking, offer: Option<Offer>, review: &str) -> Markup {
    html! {
        section.box #cancel aria-labelledby="cancel-title" {
            h2 #cancel-title { "Cancelling" }
            @match offer {
                Some(offer) => {
                    p #refund { (wording(b, offer)) }
                    p { a href=(review) { "Cancel this booking…" } }
                }
                None if b.status == Status::Cancelled => p { "This booking is cancelled." },
                None => p { "The cancellation policy gives nothing back now: write to your host if your plans change." },
            }
        }
    }
}

/// The review step: the refund first, then the button that cancels.
pub fn review(b: &Booking, offer: Offer, token: &str, back: &str, limited: Option<u64>) -> Markup {
    html! {
        main.page #stay {
            h1 { "Cancel your stay at " (b.property_name) "?" }
            @if let Some(wait) = limited {
                div.alert role="alert" {
                    "Too many attempts on this page: please try again in " (wait.div_ceil(60)) " minutes."
                }
            }
            section.box {
                p #refund { (wording(b, offer)) }
                p { "Booking " (b.code) ", " (crate::book::page::day(b.check_in())) " to " (crate::book::page::day(b.check_out())) "." }
                form method="post" {
                    input type="hidden" name="token" value=(token);
                    button type="submit" { "Yes, cancel my booking" }
                }
                p { a href=(back) { "No, keep my booking" } }
            }
        }
    }
}
