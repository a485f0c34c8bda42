//! `GET /api/v1/bookings/{code}/check-in`: what a guest gave on the stay
//! page's check-in form and when; the document number only to `guests` keys.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use http::StatusCode;
use rental_core::check_in::{CheckIn, CheckInAnswers};
use rental_core::{Rental, Store};
use serde::Serialize;

use crate::reply::{Reply, blocking, json};

/// A booking's check-in as the API writes it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[schemars(rename = "CheckIn")]
#[serde(rename_all = "camelCase")]
pub struct CheckInView {
    /// When the guest last sent the form; null while they have not.
    pub given_at: Option<String>,
    /// What they gave: each field absent when not asked or left empty.
    /// `documentNumber` is written only to a key with the `guests` scope.
    #[serde(flatten)]
    pub answers: CheckInAnswers,
    /// True while a document number is kept (30 days after check-out), whoever reads.
    pub document_given: bool,
    /// When the document number was deleted; null until then.
    pub document_deleted_at: Option<String>,
}

impl CheckInView {
    /// The view of `given` for a key with (`guests`) or without the `guests` scope.
    pub fn of(given: Option<CheckIn>, guests: bool) -> Self {
        let Some(given) = given else {
            return CheckInView {
                given_at: None,
                answers: CheckInAnswers::default(),
                document_given: false,
                document_deleted_at: None,
            };
        };
        let mut answers = given.answers;
        let document_given = answers.document_number.is_some();
        if !guests {
            answers.document_number = None;
        }
        CheckInView {
            given_at: Some(instant(given.given_at)),
            answers,
            document_given,
            document_deleted_at: given.document_deleted_at.map(instant),
        }
    }
}

/// Answers booking `code`'s check-in (404 for an unknown booking).
pub async fn get<S: Store + 'static>(rental: &Arc<Rental<S>>, code: String, guests: bool) -> Reply {
    let given = blocking(rental, move |r| r.check_ins().get(&code)).await?;
    Ok(json(StatusCode::OK, &CheckInView::of(given, guests)))
}

/// An instant as the API writes them: RFC 3339, milliseconds, `Z`.
fn instant(at: DateTime<Utc>) -> String {
    rental_core::timestamp::format(&at)
}
