//! When the leader of a group commit starts its group: how long it waits for
//! the callers of the last group to come back. One policy for every queue
//! that gathers creations, whether its callers block or await.
//!
//! Under steady load the callers split into two cohorts that take turns (one
//! committing while the other queues), each group half of them. That costs
//! each cohort a commit's sync, while the committer works on one cohort as
//! the other comes back; waiting for everyone costs the committer's idle
//! time instead. So a leader that finds fewer jobs queued than were waiting
//! at once during the last group waits for the rest no longer than the
//! store's last sync took ([`Gathering::sync_took`]), nor than the last group
//! took ([`MAX_GATHER`] at most): the wait pays where syncs are slow beside
//! the callers' way back. A wait that ends before all are back makes the
//! next leaders skip waiting for a while (doubling up to [`MAX_SKIP`]
//! groups), so callers that cannot come back in time cost almost nothing. A
//! lone caller never waits.

use std::time::Duration;

/// The longest a leader waits for more jobs before it starts a group.
pub const MAX_GATHER: Duration = Duration::from_millis(2);
/// The most groups that start without waiting after waits that did not pay.
pub const MAX_SKIP: u32 = 64;

/// A queue's memory of its last groups, which decides each leader's wait.
#[derive(Debug, Clone)]
pub struct Gathering {
    /// The most callers waiting at once when the last group started.
    peak: usize,
    /// How long the last group took to process.
    last_group: Duration,
    /// How long the store's last commit waited for its sync.
    sync: Duration,
    /// Groups still to start without waiting, after a wait that did not pay.
    skip: u32,
    /// How many groups the next wait that does not pay makes skip.
    backoff: u32,
}

impl Default for Gathering {
    fn default() -> Self {
        Gathering { peak: 0, last_group: Duration::ZERO, sync: Duration::ZERO, skip: 0, backoff: 1 }
    }
}

impl Gathering {
    /// How many jobs the next group waits for: as many callers as were
    /// waiting at once during the last group, at most `max` (a group's size).
    pub fn target(&self, max: usize) -> usize {
        self.peak.min(max)
    }

    /// How long a leader that finds `queued` jobs waits for the rest of
    /// [`Gathering::target`], or `None` to start at once. A `None` that
    /// skips a wait counts as one.
    pub fn wait(&mut self, queued: usize, max: usize) -> Option<Duration> {
        if queued >= self.target(max) {
            return None;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        Some(self.last_group.min(self.sync).min(MAX_GATHER)).filter(|wait| !wait.is_zero())
    }

    /// The store's last commit waited `took` for its sync: what a commit of
    /// their own costs the callers a leader would wait for, and so the longest it waits.
    pub fn sync_took(&mut self, took: Duration) {
        self.sync = took;
    }

    /// After a wait: `paid` when every job it waited for arrived during it.
    pub fn waited(&mut self, paid: bool) {
        if paid {
            self.backoff = 1;
        } else {
            self.skip = self.backoff;
            self.backoff = (self.backoff * 2).min(MAX_SKIP);
        }
    }

    /// A group starts, with `waiting` callers waiting for an answer (its own and those queued).
    pub fn started(&mut self, waiting: usize) {
        self.peak = waiting;
    }

    /// A caller arrived, and `waiting` callers now wait for an answer.
    pub fn arrived(&mut self, waiting: usize) {
        self.peak = self.peak.max(waiting);
    }

    /// The group took `took` to process.
    pub fn finished(&mut self, took: Duration) {
        self.last_group = took;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after_a_crowd() -> Gathering {
        let mut gathering = Gathering::default();
        gathering.started(16);
        gathering.finished(Duration::from_secs(3600));
        gathering.sync_took(Duration::from_secs(3600));
        gathering
    }

    #[test]
    fn a_lone_caller_never_waits_and_a_wait_that_did_not_pay_is_skipped_next() {
        let mut gathering = Gathering::default();
        assert_eq!(gathering.wait(1, 64), None, "a lone caller never waits");
        gathering.started(16);
        gathering.finished(Duration::from_millis(3));
        gathering.sync_took(Duration::from_millis(5));
        assert_eq!(gathering.wait(4, 64), Some(Duration::from_millis(2)), "12 callers are still to come back");
        gathering.waited(false);
        assert_eq!(gathering.wait(4, 64), None, "not all came: the next group starts at once");
    }

    #[test]
    fn a_leader_waits_no_longer_than_a_sync_takes() {
        let mut gathering = after_a_crowd();
        gathering.sync_took(Duration::from_micros(300));
        assert_eq!(gathering.wait(8, 64), Some(Duration::from_micros(300)), "half the crowd is back");
        gathering.sync_took(Duration::ZERO);
        assert_eq!(gathering.wait(8, 64), None, "a sync that costs nothing is not worth waiting for");
    }

    #[test]
    fn a_leader_waits_for_the_last_crowd_at_most_max_gather_and_not_once_all_are_back() {
        let mut gathering = after_a_crowd();
        assert_eq!(gathering.wait(3, 64), Some(MAX_GATHER));
        assert_eq!(gathering.wait(16, 64), None);
        assert_eq!(gathering.wait(8, 8), None, "a full group starts at once");
    }

    #[test]
    fn a_wait_that_does_not_pay_makes_the_next_groups_start_at_once_doubling() {
        let mut gathering = after_a_crowd();
        gathering.wait(1, 64).unwrap();
        gathering.waited(false);
        assert_eq!(gathering.wait(1, 64), None, "one group skips");
        gathering.wait(1, 64).unwrap();
        gathering.waited(false);
        assert_eq!((gathering.wait(1, 64), gathering.wait(1, 64)), (None, None), "then two");
        gathering.wait(1, 64).unwrap();
        gathering.waited(true);
        gathering.wait(1, 64).unwrap();
        gathering.waited(false);
        assert_eq!(gathering.wait(1, 64), None, "a wait that paid starts the count again");
        assert!(gathering.wait(1, 64).is_some());
    }
}
