//! What servers and background workers call besides the use cases: [`Worker`], from
//! [`Rental::worker`](crate::Rental::worker), and the values its calls take and return.

pub use crate::service::{
    CATCH_UP_DAYS, Claim, Claimed, DueDelivery, FeedPull, Fetched, PRUNE_BATCH, Pruned, PullClaim, Worker,
};
