//! Slows down password guessing: after [`FREE_FAILURES`] failed logins in a
//! row from one IP address, that address must wait before trying again, and
//! the wait doubles with each further failure (1 s, 2 s, 4 s ... 15 min).
//! The failures are kept in the store, so every server sharing it counts them;
//! the address is the client's as [`crate::client_addr`] finds it, counted
//! by its [`ClientGroup`] (an IPv6 client's whole /64).
//!
//! An attempt is counted before its password is checked, in the transaction
//! that checks the wait: attempts sent at once cannot all pass the check.

use std::net::IpAddr;
use std::sync::Arc;

use rental_core::Store;
pub use rental_core::admin_session::{FREE_FAILURES, MAX_WAIT};

use crate::AppState;
use crate::client_addr::ClientGroup;
use crate::problem::Problem;
use crate::reply::blocking;

/// Counts a login attempt from `client` as a failure until it succeeds:
/// `Ok(Some(seconds))`, and nothing counted, while `client` must wait.
pub async fn attempt<S: Store + 'static>(state: &Arc<AppState<S>>, client: IpAddr) -> Result<Option<u64>, Problem> {
    let attempt =
        blocking(state.rental(), move |r| r.worker().login_attempt(&ClientGroup::of(client).to_string(), r.now()))
            .await?;
    // Whole seconds, rounded up, so that a client waiting that long is let in.
    Ok(attempt.err().map(|w| u64::try_from((w.num_milliseconds() + 999) / 1000).unwrap_or(1).max(1)))
}

/// Forgets the failures of `client` after a successful login.
pub async fn succeeded<S: Store + 'static>(state: &Arc<AppState<S>>, client: IpAddr) -> Result<(), Problem> {
    blocking(state.rental(), move |r| r.worker().login_succeeded(&ClientGroup::of(client).to_string())).await
}
