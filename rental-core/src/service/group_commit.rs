//! Group commit: callers that arrive while a write is running queue up, and
//! the next one to find no write running does all of theirs in one durable
//! transaction. Each job still sees every job before it; one sync covers many.
//! How long that leader waits for more callers is [`Gathering`]'s to say.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::gathering::Gathering;

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
    gathering: Gathering,
}

impl<J, R> Default for GroupCommit<J, R> {
    fn default() -> Self {
        let queue = Queue {
            waiting: Vec::new(),
            finished: HashMap::new(),
            next_ticket: 0,
            leader: false,
            inside: 0,
            gathering: Gathering::default(),
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
        let inside = queue.inside;
        queue.gathering.arrived(inside);
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
            let inside = queue.inside;
            queue.gathering.started(inside);
            drop(queue);
            let started = Instant::now();
            let (tickets, jobs): (Vec<u64>, Vec<J>) = batch.into_iter().unzip();
            let count = jobs.len();
            let mut results = catch_unwind(AssertUnwindSafe(|| process(jobs))).unwrap_or_default();
            if results.len() != count {
                results = (0..count).map(|_| failed()).collect();
            }
            queue = self.lock();
            queue.gathering.finished(started.elapsed());
            queue.finished.extend(tickets.into_iter().zip(results));
            queue.leader = false;
            self.done.notify_all();
        }
    }

    /// Waits, as the leader, as long as [`Gathering::wait`] says, or until
    /// as many jobs are queued as it waits for (at most `max`).
    fn gather<'q>(&self, mut queue: MutexGuard<'q, Queue<J, R>>, max: usize) -> MutexGuard<'q, Queue<J, R>> {
        let target = queue.gathering.target(max);
        let before = queue.waiting.len();
        let Some(wait) = queue.gathering.wait(before, max) else {
            return queue;
        };
        let deadline = Instant::now() + wait;
        while queue.waiting.len() < target {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
            queue = self.arrived.wait_timeout(queue, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        let gained = queue.waiting.len() > before;
        queue.gathering.waited(gained);
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
            queue.gathering.started(16);
            queue.gathering.finished(std::time::Duration::from_secs(3600));
        }
        // The first call may wait (the crowd is remembered) but only up to MAX_GATHER;
        // the group it ran saw one caller, so the next call has nobody to wait for.
        assert_eq!(group.run(1, 64, |jobs| jobs, || 0), 1);
        assert_eq!(group.lock().gathering.target(64), 1);
        assert_eq!(group.run(2, 64, |jobs| jobs, || 0), 2);
    }
}
