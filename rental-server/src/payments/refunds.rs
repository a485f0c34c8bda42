//! Refunds through the provider (docs/API.md section 23): the ledger's `due` refunds (a
//! cancellation's by the frozen policy, a host's goodwill refund) issued from the payment
//! each names, with the idempotency key its record fixes, after looking for one an earlier
//! run made with it. A provider that is down leaves the refund `due`: the next pass (every
//! 30 seconds, once its lease lapses) tries again with the same key.

use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use rental_core::payment_provider::{PaymentProvider, ProviderError, Refund, RefundRequest, RefundState};
use rental_core::payments::refund::goodwill as goodwill_records;
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState, PaymentView};
use rental_core::{Error, Event, EventName, Rental, Store};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::provider_call::{deadline, not_configured, within};
use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, blocking, json};

/// How long a worker holds a movement it is making before another may take it: longer than
/// the handler's deadline, so a movement is never made twice at once.
pub const PAYMENT_LEASE: Duration = Duration::from_secs(60);

/// Issues booking `code`'s refunds to issue now (those no other worker holds), within the
/// handler's deadline; returns the booking's refund records as they are after.
pub(crate) async fn issue_for_booking<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    code: &str,
) -> Vec<PaymentRecord> {
    let owner = crate::lease_owner::lease_owner("refunds");
    let claimed = {
        let code = code.to_owned();
        blocking(rental, move |r| r.worker().claim_refunds(&code, &owner, PAYMENT_LEASE)).await
    };
    let deadline = deadline();
    for record in claimed.unwrap_or_default() {
        let id = record.id.clone();
        if let Err(reason) = issue(rental, provider, record, deadline).await {
            tracing::warn!(payment = %id, %reason, "refund not issued; tried again later");
        }
    }
    let code = code.to_owned();
    let records = blocking(rental, move |r| r.payments(&code)).await.unwrap_or_default();
    records.into_iter().filter(|r| r.kind == PaymentKind::Refund).collect()
}

/// Issues one claimed refund (or finds the one an earlier run made for its key) and records
/// what the provider said, with `booking.payment_refunded` once it succeeded.
pub(crate) async fn issue<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    record: PaymentRecord,
    deadline: Instant,
) -> Result<(), String> {
    let answer = match record.source_ref.clone() {
        None => Err(ProviderError::Refused { status: 0, reason: "no payment to refund from".into() }),
        Some(source) => {
            let key = record.idempotency_key.clone();
            match within(deadline, provider.find_refund(&source, &key)).await {
                Ok(Some(made)) => Ok(made),
                Ok(None) => {
                    let mut request = RefundRequest::new(source, record.amount, key);
                    request.metadata.insert("booking".to_owned(), record.booking.to_string());
                    request.metadata.insert("payment".to_owned(), record.id.clone());
                    within(deadline, provider.refund(request)).await
                }
                Err(error) => Err(error),
            }
        }
    };
    let outcome = answer.as_ref().map_err(ToString::to_string).err();
    let code = record.booking.to_string();
    blocking(rental, move |r| {
        r.change_payments(&code, |change| {
            let now = change.now;
            let Some(stored) = change.records.iter_mut().find(|r| r.id == record.id) else { return Ok(()) };
            if stored.status != PaymentState::Due {
                return Ok(());
            }
            if !apply(stored, &answer, now) {
                return Ok(());
            }
            let stored = stored.clone();
            let mut booking = change.booking.clone();
            rental_core::payments::follow_ledger(&mut booking, &change.records);
            change.events.push(Event::payment(EventName::PaymentRefunded, &booking, &stored, now));
            Ok(())
        })
    })
    .await
    .map_err(|p| p.detail)?;
    outcome.map_or(Ok(()), Err)
}

/// What the provider said of a refund, on its record; true when it succeeded.
fn apply(
    record: &mut PaymentRecord,
    answer: &Result<Refund, ProviderError>,
    now: rental_core::DateTime<rental_core::Utc>,
) -> bool {
    match answer {
        Ok(refund) => {
            record.provider_ref = Some(refund.id.clone());
            match refund.state {
                RefundState::Succeeded => {
                    (record.status, record.error, record.at, record.lease) =
                        (PaymentState::Succeeded, None, Some(now), None);
                    return true;
                }
                RefundState::Failed => record.retry("the bank refused the refund", now),
                // The bank has it: the next pass finds it by its key and reads it again.
                _ => {}
            }
        }
        // Down or slow: kept `due` and leased, so the next try waits for the lease to lapse.
        Err(error) if error.is_retryable() => record.error = Some(error.to_string()),
        Err(error) => record.retry(error.to_string(), now),
    }
    if record.status == PaymentState::Failed {
        record.lease = None;
    }
    false
}

/// The `refund` of a cancel answer: what the cancellation gives back (`made`, the refund
/// records it wrote) and where that stands (`succeeded`, `due` while the provider has not
/// done it, `failed`); null when it gives nothing back.
pub(crate) fn cancel_answer(made: &[PaymentRecord], currency: &str) -> Value {
    if made.is_empty() {
        return Value::Null;
    }
    let status = if made.iter().all(|r| r.status == PaymentState::Succeeded) {
        "succeeded"
    } else if made.iter().any(|r| r.status == PaymentState::Failed) {
        "failed"
    } else {
        "due"
    };
    let amount: i64 = made.iter().map(|r| r.amount).sum();
    json!({"amount": amount, "currency": currency, "status": status, "payments": made.iter().map(|r| r.id.as_str()).collect::<Vec<_>>()})
}

/// The body of `POST /api/v1/bookings/{code}/refunds`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GoodwillRequest {
    /// In the booking currency's minor unit.
    amount: i64,
    /// Why, for the ledger and the guest.
    #[serde(default)]
    reason: Option<String>,
}

/// The longest reason kept, in bytes.
const MAX_REASON: usize = 500;

/// `POST /api/v1/bookings/{code}/refunds`: a goodwill refund of `amount`, at most what was
/// paid and not refunded (more: 422 on `amount`, nothing refunded), recorded `due` and
/// issued through the provider before answering 201 with the refund records it made.
pub async fn goodwill<S: Store + 'static>(state: &Arc<AppState<S>>, code: String, body: &[u8]) -> Reply {
    let provider = state.payments.clone().ok_or_else(not_configured)?;
    let request: GoodwillRequest = crate::request::json(body)?;
    let reason = request.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()).unwrap_or("goodwill").to_owned();
    if reason.len() > MAX_REASON {
        let message = format!("must be at most {MAX_REASON} bytes");
        return Err(Problem::from(Error::invalid("reason", "too_long", message)));
    }
    let rental = state.rental();
    let made = {
        let code = code.clone();
        blocking(rental, move |r| {
            r.change_payments(&code, |change| {
                let made = goodwill_records(&change.booking, &change.records, request.amount, &reason)
                    .map_err(|e| Error::invalid("amount", "out_of_range", e.to_string()))?;
                change.records.extend(made.iter().cloned());
                Ok(made)
            })
        })
        .await?
    };
    let after = issue_for_booking(rental, provider.as_ref(), &code).await;
    let data: Vec<PaymentView> =
        after.iter().filter(|r| made.iter().any(|m| m.id == r.id)).map(PaymentView::from).collect();
    Ok(json(StatusCode::CREATED, &json!({"data": data})))
}
