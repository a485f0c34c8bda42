//! [`Checkout`]: where a booking's payment with the provider stands: the guest's customer,
//! the card-saving intent and the saved card, and the checkout's own payment. A stored record.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::BookingCode;

/// A booking's checkout with the payment provider. The ids are the provider's; none is a
/// secret key (a client secret lets only the guest's browser confirm its own intent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Checkout {
    /// The booking.
    pub booking: BookingCode,
    /// The provider's name (`stripe`).
    pub provider: String,
    /// The guest's customer at the provider.
    pub customer: String,
    /// The card-saving intent the guest's browser confirms.
    pub setup: String,
    /// Its client secret, given to the guest's browser again on a repeat.
    pub setup_client_secret: String,
    /// The saved card, once the setup succeeded.
    pub card: Option<String>,
    /// The checkout's payment (a hold for a request, a charge for an instant booking), once made.
    pub payment: Option<String>,
    /// Attempts to pay so far: each attempt is its own movement with its own idempotency key.
    pub attempts: u32,
    /// Whether the checkout's payment is a hold (`true`) or a charge.
    pub hold: bool,
    /// The ledger's installments the checkout's payment pays (their ids), chosen when the
    /// attempt began: those due then.
    #[serde(default)]
    pub covers: Vec<String>,
    /// The current attempt's idempotency key when it pays installments the server could also
    /// charge off-session (a confirmed booking's refused or due one, paid on the stay page):
    /// the first covered installment's own key, so that the guest's payment and the worker's
    /// can never both be made. `None`: the checkout's own key, `{code}-checkout-{attempt}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movement_key: Option<String>,
    /// Set once the provider's hold was captured or released, or the charge refunded in full:
    /// nothing of the checkout's payment is left open.
    pub settled: bool,
    /// When it last changed.
    #[serde(with = "crate::basics::timestamp")]
    pub updated_at: DateTime<Utc>,
}

impl Checkout {
    /// A checkout that has just started: the customer and setup intent exist, nothing is paid.
    pub fn new(booking: BookingCode, provider: &str, setup: &super::CardSetup, now: DateTime<Utc>) -> Self {
        Checkout {
            booking,
            provider: provider.to_owned(),
            customer: setup.customer.clone(),
            setup: setup.id.clone(),
            setup_client_secret: setup.client_secret.clone(),
            card: setup.card.clone(),
            payment: None,
            attempts: 0,
            covers: Vec::new(),
            movement_key: None,
            hold: false,
            settled: false,
            updated_at: now,
        }
    }

    /// The idempotency key of the current attempt's payment: fixed per attempt, so a retry
    /// of the same attempt never charges twice.
    pub fn payment_key(&self) -> String {
        match &self.movement_key {
            Some(key) => key.clone(),
            None => format!("{}-checkout-{}", self.booking, self.attempts),
        }
    }

    /// The idempotency key of settling (capturing or releasing) the current payment.
    pub fn settle_key(&self, what: &str) -> String {
        format!("{}-{what}", self.payment_key())
    }
}

/// What the provider said of a checkout's payment, as the booking takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckoutOutcome {
    /// A hold was taken: a request becomes `authorized` (`booking.payment_authorized`).
    Held,
    /// A charge succeeded: an instant booking is confirmed and `paid`.
    Paid,
    /// The host's confirmation captured the hold: the booking is confirmed and `paid`.
    Captured,
    /// The hold was released (the booking was cancelled, declined or lapsed): nothing moved.
    Released,
    /// The bank refused or the guest did not authenticate: the booking is unchanged, the
    /// installments are `failed` with the reason, and the guest may try again (a new attempt).
    Failed {
        /// The bank's or provider's reason.
        error: String,
    },
    /// Not known yet (the bank wants the guest, or it is processing): only the checkout is saved.
    Pending,
}
