//! The channel calendars' use cases (vocabulary: [`crate::channels`]): pulling
//! a channel's feed, editing a property's feeds, and our calendar export.

mod export;
mod feeds;
mod pull;

pub use self::pull::{FeedPull, Fetched, PullClaim};
