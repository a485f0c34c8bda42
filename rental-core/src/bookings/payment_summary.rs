//! The sums of a booking's payments as its body shows them: the ledger (`crate::payments`)
//! keeps them in step; a booking without a ledger shows zeros.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::money::Cents;

/// What a booking's body says of its money (docs/API.md, Payments), kept in
/// step with its ledger by every write of either. All 0 (and no next
/// payment) for a booking without a ledger: one imported from a channel, or
/// made before payments.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentSummary {
    /// Installments paid, in the minor unit of the booking's currency.
    #[serde(default)]
    pub amount_paid: Cents,
    /// Refunds made.
    #[serde(default)]
    pub amount_refunded: Cents,
    /// What is still to pay of the total: installments not yet paid; 0 once cancelled.
    #[serde(default)]
    pub balance_due: Cents,
    /// When the next unpaid installment falls due; null when none is.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub next_payment_at: Option<DateTime<Utc>>,
}
