//! Payments: the money math of a booking (installments, deposit instants,
//! refunds by policy) and the ledger of its movements, provider-neutral.
//!
//! - [`schedule`]: a booking's installments and deposit instants from its frozen terms.
//! - [`refund`]: what a cancellation refunds under a frozen policy.
//! - [`derive_status`], [`follow_ledger`]: a booking's sums and `paymentStatus` from its ledger.
//! - [`ledger`]: the stored payment records and the frozen plan, written in
//!   the booking change's own transaction. [`crate::Rental::payments`] reads a
//!   booking's records; [`crate::Rental::change_payments`] changes them with the booking.

mod event;
pub mod ledger;
pub mod refund;
pub mod reprice;
pub mod schedule;
mod status;

pub use ledger::{
    PaymentKind, PaymentPlan, PaymentRecord, PaymentState, PaymentSummary, PaymentView, Totals, deposit_held,
};
pub use status::{derive_status, follow_ledger};
