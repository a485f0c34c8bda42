//! Group commit: callers that arrive while a write is running queue up, and
//! the next one to find no write running does all of theirs in one durable
//! transaction. Each job still sees every job before it; one sync covers many.
//!
//! Under steady load the callers would split into two cohorts that take turns
//! (one committing while the other queues), each group half of them. So a
//! leader that finds fewer jobs queued than were inside at once during the
//! last group waits for the rest to come back, at most as long as the last
//! group took ([`GroupCommit::gather`]). A wait that ends with nobody new
//! makes the next leaders skip waiting for a while (doubling up to
//! [`MAX_SKIP`] groups), so callers that cannot come back in time cost
//! almost nothing. A lone caller never waits.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The longest a leader waits for more jobs before it starts a group.
const MAX_GATHER: Duration = Duration::from_millis(2);
/// The most groups that start without waiting after waits that did not pay.
const MAX_SKIP: u32 = 64;

/// A queue of jobs of type `J` whose results are of type `R`.
#[derive(Debug)]
pub(super) struct GroupCommit<J, R> {
    queue: Mutex<Queue<J, R>>,
    done: Condvar,
    arrived: Condvar,
}

#[derive(Debug)]
struct Queue<J, R> {
    waiting: Vec<(u64, J)>,
    finished: HashMap<u64, R>,
    next_ticket: u64,
    leader: bool,
    /// Callers inside [`GroupCommit::run`] now.
    inside: usize,
    /// The most callers inside at once since the last group started.
    peak: usize,
    /// How long the last group took to process.
    last_group: Duration,
    /// Groups still to start without waiting, after a wait that did not pay.
    skip: u32,
    /// How many groups the next wait that does not pay makes skip.
    backoff: u32,
}

impl<J, R> Default for GroupCommit<J, R> {
    fn default() -> Self {
        let queue = Queue {
            waiting: Vec::new(),
            finished: HashMap::new(),
            next_ticket: 0,
            leader: false,
            inside: 0,
            peak: 0,
            last_group: Duration::ZERO,
            skip: 0,
            backoff: 1,
        };
        GroupCommit { queue: Mutex::new(queue), done: Condvar::new(), arrived: Condvar::new() }
    }
}

impl<J, R> GroupCommit<J, R> {
    /// Runs `job` in a batch of at most `max` jobs, in arrival order, and
    /// returns its result. `process` gets a batch and returns one result per
    /// job, in order; if it panics, every job of the batch gets `failed()`.
    pub(super) fn run(&self, job: J, max: usize, process: impl Fn(Vec<J>) -> Vec<R>, failed: impl Fn() -> R) -> R {
        let mut queue = self.lock();
        let ticket = queue.next_ticket;
        queue.next_ticket += 1;
        queue.waiting.push((ticket, job));
        queue.inside += 1;
        queue.peak = queue.peak.max(queue.inside);
        self.arrived.notify_one();
        loop {
            if let Some(result) = queue.finished.remove(&ticket) {
                queue.inside -= 1;
                return result;
            }
            if queue.leader {
                queue = self.done.wait(queue).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            queue.leader = true;
            queue = self.gather(queue, max);
            let take = queue.waiting.len().min(max);
            let batch: Vec<(u64, J)> = queue.waiting.drain(..take).collect();
            queue.peak = queue.inside;
            drop(queue);
            let started = Instant::now();
            let (tickets, jobs): (Vec<u64>, Vec<J>) = batch.into_iter().unzip();
            let count = jobs.len();
            let mut results = catch_unwind(AssertUnwindSafe(|| process(jobs))).unwrap_or_default();
            if results.len() != count {
                results = (0..count).map(|_| failed()).collect();
            }
            queue = self.lock();
            queue.last_group = started.elapsed();
            queue.finished.extend(tickets.into_iter().zip(results));
            queue.leader = false;
            self.done.notify_all();
        }
    }

    /// Waits, as the leader, until as many jobs are queued as were inside at
    /// once during the last group (at most `max`), or as long as the last
    /// group took (at most [`MAX_GATHER`]); see the module's docs.
    fn gather<'q>(&self, mut queue: MutexGuard<'q, Queue<J, R>>, max: usize) -> MutexGuard<'q, Queue<J, R>> {
        let target = queue.peak.min(max);
        if queue.waiting.len() >= target {
            return queue;
        }
        if queue.skip > 0 {
            queue.skip -= 1;
            return queue;
        }
        let before = queue.waiting.len();
        let deadline = Instant::now() + queue.last_group.min(MAX_GATHER);
        while queue.waiting.len() < target {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
            queue = self.arrived.wait_timeout(queue, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        if queue.waiting.len() > before {
            queue.backoff = 1;
        } else {
            queue.skip = queue.backoff;
            queue.backoff = (queue.backoff * 2).min(MAX_SKIP);
        }
        queue
    }

    fn lock(&self) -> MutexGuard<'_, Queue<J, R>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn every_caller_gets_its_own_result_and_batches_form_under_contention() {
        let group = Arc::new(GroupCommit::<u32, u32>::default());
        let batches = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..16u32)
            .map(|i| {
                let (group, batches) = (Arc::clone(&group), Arc::clone(&batches));
                std::thread::spawn(move || {
                    let process = |jobs: Vec<u32>| {
                        batches.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        jobs.into_iter().map(|j| j * 10).collect()
                    };
                    group.run(i, 8, process, || u32::MAX)
                })
            })
            .collect();
        let results: Vec<u32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(results, (0..16).map(|i| i * 10).collect::<Vec<_>>());
        assert!(batches.load(Ordering::SeqCst) < 16, "some jobs shared a batch");
    }

    #[test]
    fn a_panicking_batch_fails_its_jobs_and_the_queue_goes_on() {
        let group = GroupCommit::<u32, u32>::default();
        let got = group.run(1, 8, |_| panic!("store exploded"), || 0);
        assert_eq!(got, 0);
        assert_eq!(group.run(2, 8, |jobs| jobs, || 0), 2);
    }

    #[test]
    fn a_lone_caller_after_a_crowd_does_not_wait_again() {
        let group = GroupCommit::<u32, u32>::default();
        {
            let mut queue = group.lock();
            queue.peak = 16;
            queue.last_group = Duration::from_secs(3600);
        }
        // The first call may wait (the crowd is remembered) but only up to MAX_GATHER;
        // the group it ran saw one caller, so the next call has nobody to wait for.
        assert_eq!(group.run(1, 64, |jobs| jobs, || 0), 1);
        assert_eq!(group.lock().peak, 1);
        assert_eq!(group.run(2, 64, |jobs| jobs, || 0), 2);
    }

    #[test]
    fn a_wait_that_brings_nobody_makes_the_next_groups_start_at_once() {
        let group = GroupCommit::<u32, u32>::default();
        let state = |group: &GroupCommit<u32, u32>| {
            let queue = group.lock();
            (queue.skip, queue.backoff)
        };
        let crowd = |group: &GroupCommit<u32, u32>| {
            let mut queue = group.lock();
            queue.peak = 16;
            queue.last_group = Duration::from_secs(3600);
        };
        crowd(&group);
        group.run(1, 64, |jobs| jobs, || 0);
        assert_eq!(state(&group), (1, 2), "one group skips, the next fruitless wait two");
        crowd(&group);
        group.run(2, 64, |jobs| jobs, || 0);
        assert_eq!(state(&group), (0, 2), "the skipped group did not wait");
        crowd(&group);
        group.run(3, 64, |jobs| jobs, || 0);
        assert_eq!(state(&group), (2, 4));
    }
}
