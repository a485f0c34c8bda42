//! A booking's online check-in on its admin page (docs/API.md section 24):
//! what the guest gave on the stay page and when, the document number included.

use maud::{Markup, html};
use rental_core::check_in::CheckIn;
use rental_core::local_moment;

/// The check-in card; times on the property's clock (`zone`). Every value is
/// the guest's own text, escaped by maud.
pub fn card(given: Option<&CheckIn>, zone: rental_core::Tz) -> Markup {
    html! {
        section.card #check-in {
            h2 { "Online check-in" }
            @match given {
                None => p.muted { "The guest has not sent the check-in form." },
                Some(c) => {
                    p { "Sent " (local_moment(c.given_at, zone)) "." }
                    dl {
                        @if let Some(v) = &c.answers.email { dt { "E-mail" } dd #check-in-email { (v) } }
                        @if let Some(v) = &c.answers.phone { dt { "Phone" } dd #check-in-phone { (v) } }
                        @if let Some(v) = c.answers.arrival_time { dt { "Arrival time" } dd #check-in-arrival { (v) } }
                        @if let Some(v) = &c.answers.guest_names { dt { "Guests" } dd.paragraphs #check-in-names { (v) } }
                        @if let Some(v) = &c.answers.address { dt { "Address" } dd.paragraphs #check-in-address { (v) } }
                        @if let Some(v) = &c.answers.document_number { dt { "Document number" } dd #check-in-document { (v) } }
                        @if let Some(at) = c.document_deleted_at { dt { "Document number" } dd { "deleted " (local_moment(at, zone)) } }
                    }
                }
            }
        }
    }
}
