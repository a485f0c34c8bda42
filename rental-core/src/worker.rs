//! What servers and background workers call besides the use cases: [`Worker`], from
//! [`Rental::worker`](crate::Rental::worker), and the values its calls take and return.
//!
//! Every claim a worker makes (a delivery, a message, a feed pull, a payment movement)
//! holds a [`Lease`](crate::lease::Lease) in the store, claimed, renewed and released by
//! the rules of [`crate::lease`]; the `claim_*`, `renew_*` and `void_*` calls here apply
//! them to the records of each kind.

pub use crate::service::{
    CATCH_UP_DAYS, Claim, Claimed, DueDelivery, FeedPull, Fetched, PRUNE_BATCH, Pruned, PullClaim, Worker,
};
