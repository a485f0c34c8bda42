//! Learning what happened at the provider (docs/API.md section 23): one checkout brought in
//! line with its payment as the provider has it, which the webhook does for the payment an
//! event names and the reconciler does for every open checkout at start and every
//! [`RECONCILE_INTERVAL`] (a payment whose answer was lost, a hold left on a booking
//! cancelled while the provider was down, a lapsed request's unfinished payment).

use std::sync::Arc;
use std::time::Duration;

use rental_core::payment_provider::{Checkout, CheckoutOutcome, PaymentProvider, PaymentState, ProviderError};
use rental_core::{Rental, Status, Store};
use tokio::sync::watch;

use super::checkout::record;
use super::provider_call::{deadline, within};
use super::settle::release;
use crate::problem::Problem;
use crate::reply::blocking;

/// How often every open checkout is compared with the provider.
pub const RECONCILE_INTERVAL: Duration = Duration::from_secs(600);

/// Checkouts looked at per run, at most (the rest wait for the next run).
const PER_RUN: usize = 1_000;

/// Why a checkout could not be brought in line.
#[derive(Debug)]
pub(crate) enum Unreconciled {
    /// The provider did not answer as needed: try again later.
    Provider(ProviderError),
    /// Our store refused.
    Store(Problem),
}

/// Brings `checkout` in line with the provider: its payment fetched (or found by the
/// attempt's key when the answer to the charge was lost) and recorded with the booking
/// change it causes; a payment still open on a booking cancelled meanwhile released.
pub(crate) async fn reconcile<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    provider: &dyn PaymentProvider,
    mut checkout: Checkout,
) -> Result<(), Unreconciled> {
    let deadline = deadline();
    let payment = if let Some(id) = checkout.payment.clone() {
        within(deadline, provider.payment(&id)).await.map_err(Unreconciled::Provider)?
    } else {
        let key = checkout.payment_key();
        let found = within(deadline, provider.find_payment(&checkout.customer, &key)).await;
        let Some(payment) = found.map_err(Unreconciled::Provider)? else {
            return close_if_over(rental, checkout).await.map_err(Unreconciled::Store);
        };
        payment
    };
    checkout.payment = Some(payment.id.clone());
    let booking = record(rental, &checkout, &payment).await.map_err(Unreconciled::Store)?;
    let open = matches!(payment.state, PaymentState::Authorized | PaymentState::RequiresAction);
    if booking.status == Status::Cancelled && open {
        release(rental, provider, checkout).await;
    }
    Ok(())
}

/// Settles a checkout whose attempt the provider has no payment for once its booking is
/// cancelled or its stay is over: nothing can be paid with it any more, and a checkout begun
/// and left (a request that lapsed before the guest paid, a stay the host confirmed as paid
/// outside) would otherwise be looked at on every run.
async fn close_if_over<S: Store + 'static>(rental: &Arc<Rental<S>>, mut checkout: Checkout) -> Result<(), Problem> {
    let code = checkout.booking.to_string();
    let booking = blocking(rental, move |r| r.booking(&code)).await?;
    // A day's slack for the property's time zone: the guest's last day can still pay.
    let over = booking.check_out() < rental.now().date_naive() - chrono::Days::new(1);
    if booking.status != Status::Cancelled && !over {
        return Ok(());
    }
    checkout.settled = true;
    // It paid nothing: no installment is moved.
    checkout.covers.clear();
    blocking(rental, move |r| r.record_checkout(&checkout, &CheckoutOutcome::Pending)).await.map(drop)
}

/// Reconciles every open checkout now, then every [`RECONCILE_INTERVAL`], and charges the
/// installments that fell due every [`super::installments::INSTALLMENT_INTERVAL`], until `stop`.
pub async fn run<S: Store + 'static>(
    rental: Arc<Rental<S>>,
    provider: Arc<dyn PaymentProvider>,
    mut stop: watch::Receiver<bool>,
) {
    let mut every = tokio::time::interval(RECONCILE_INTERVAL);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut installments = tokio::time::interval(super::installments::INSTALLMENT_INTERVAL);
    installments.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => once(&rental, provider.as_ref()).await,
            _ = installments.tick() => super::installments::charge_due(&rental, provider.as_ref()).await,
            _ = stop.changed() => return,
        }
    }
}

/// One pass over the open checkouts.
pub async fn once<S: Store + 'static>(rental: &Arc<Rental<S>>, provider: &dyn PaymentProvider) {
    let open = match blocking(rental, |r| r.open_checkouts("", PER_RUN)).await {
        Ok(open) => open,
        Err(problem) => {
            tracing::error!(detail = %problem.detail, "cannot read the open checkouts");
            return;
        }
    };
    for checkout in open {
        let booking = checkout.booking.clone();
        match reconcile(rental, provider, checkout).await {
            Ok(()) => {}
            Err(Unreconciled::Provider(error)) => {
                tracing::warn!(%booking, %error, "checkout not reconciled; retried later");
            }
            Err(Unreconciled::Store(problem)) => {
                tracing::warn!(%booking, detail = %problem.detail, "checkout not recorded");
            }
        }
    }
}
