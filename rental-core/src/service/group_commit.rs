//! Group commit: callers that arrive while a write is running queue up, and
//! the next one to find no write running does all of theirs in one durable
//! transaction. Each job still sees every job before it; one sync covers many.
//! How long that leader waits for more callers is [`Gathering`]'s to say.
//!
//! The one queue for blocking callers and awaiting ones alike: a blocking
//! caller may lead a group itself; an awaiting caller ([`GroupCommit::submit`])
//! holds no thread while it waits, and its jobs are led by a committer thread
//! that runs while there is work and ends after [`IDLE`] without any.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::bookings::gathering::Gathering;

/// How long a committer thread waits for work before it ends.
const IDLE: Duration = Duration::from_secs(2);

/// A queue of jobs of type `J` whose results are of type `R`.
#[derive(Debug)]
pub(super) struct GroupCommit<J, R> {
    queue: Mutex<Queue<J, R>>,
    /// Blocking callers wait here for their result or their turn to lead.
    done: Condvar,
    /// A gathering leader waits here for more jobs.
    arrived: Condvar,
    /// The committer thread waits here for jobs to lead.
    work: Condvar,
    /// How long the store's last commit waited for its sync, in nanoseconds ([`GroupCommit::sync_took`]).
    sync_nanos: AtomicU64,
}

#[derive(Debug)]
struct Queue<J, R> {
    waiting: Vec<(Answer<R>, J)>,
    finished: HashMap<u64, R>,
    next_ticket: u64,
    leader: bool,
    /// Callers waiting for a result now, blocked or awaiting.
    inside: usize,
    gathering: Gathering,
    /// A committer thread runs.
    committer: bool,
    /// The owner is gone: the committer fails what is queued and ends.
    closed: bool,
    /// Threads asleep on each condvar, by [`Sleep`]: a notify with nobody
    /// asleep is skipped, as each one is a system call.
    asleep: [usize; 3],
    /// How many queued jobs the gathering leader waits for: it is woken once
    /// they are queued, not at each arrival.
    gathering_for: usize,
}

/// The condvar a thread sleeps on.
#[derive(Debug, Clone, Copy)]
enum Sleep {
    Done,
    Arrived,
    Work,
}

/// Where a job's result goes.
#[derive(Debug)]
enum Answer<R> {
    /// To the blocking caller holding this ticket.
    Caller(u64),
    /// To a [`Later`] future.
    Later(Arc<Slot<R>>),
}

/// A result on its way to a [`Later`], and who to wake when it lands.
#[derive(Debug)]
struct Slot<R>(Mutex<(Option<R>, Option<Waker>)>);

impl<R> Slot<R> {
    fn fill(&self, result: R) {
        let waker = {
            let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            slot.0 = Some(result);
            slot.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The result of a job queued with [`GroupCommit::submit`], once its group has run.
#[derive(Debug)]
pub(super) struct Later<R>(Arc<Slot<R>>);

impl<R> Future for Later<R> {
    type Output = R;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let mut slot = self.0.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(result) = slot.0.take() {
            return Poll::Ready(result);
        }
        slot.1 = Some(cx.waker().clone());
        Poll::Pending
    }
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
            committer: false,
            closed: false,
            asleep: [0; 3],
            gathering_for: 0,
        };
        GroupCommit {
            queue: Mutex::new(queue),
            done: Condvar::new(),
            arrived: Condvar::new(),
            work: Condvar::new(),
            sync_nanos: AtomicU64::new(0),
        }
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
        queue.waiting.push((Answer::Caller(ticket), job));
        self.arrive(&mut queue);
        loop {
            if let Some(result) = queue.finished.remove(&ticket) {
                queue.inside -= 1;
                return result;
            }
            if queue.leader {
                queue = self.sleep(Sleep::Done, queue, None).0;
                continue;
            }
            queue = self.lead(queue, max, &process, &failed);
        }
    }

    /// Queues `job` and returns its result to come, holding no thread while
    /// it waits. Unless a committer thread runs, `start` starts one (which
    /// calls [`GroupCommit::commit_queued`]) and says whether it could.
    pub(super) fn submit(&self, job: J, start: impl FnOnce() -> bool, failed: impl Fn() -> R) -> Later<R> {
        let slot = Arc::new(Slot(Mutex::new((None, None))));
        let mut queue = self.lock();
        queue.waiting.push((Answer::Later(Arc::clone(&slot)), job));
        self.arrive(&mut queue);
        if queue.committer {
            self.wake(Sleep::Work, &queue);
        } else {
            queue.committer = true;
            drop(queue);
            if !start() {
                let mut queue = self.lock();
                queue.committer = false;
                // Without a thread to lead it, the job is taken back and fails.
                if let Some(at) =
                    queue.waiting.iter().position(|(a, _)| matches!(a, Answer::Later(s) if Arc::ptr_eq(s, &slot)))
                {
                    queue.waiting.remove(at);
                    queue.inside -= 1;
                    slot.fill(failed());
                }
            }
        }
        Later(slot)
    }

    /// The committer thread's work: leads groups while jobs are queued, and
    /// returns after [`IDLE`] without any, or once [`GroupCommit::close`]d.
    pub(super) fn commit_queued(&self, max: usize, process: impl Fn(Vec<J>) -> Vec<R>, failed: impl Fn() -> R) {
        let mut queue = self.lock();
        loop {
            if queue.closed {
                for (answer, _) in std::mem::take(&mut queue.waiting) {
                    if let Answer::Later(slot) = answer {
                        slot.fill(failed());
                    }
                }
                queue.committer = false;
                self.wake(Sleep::Done, &queue);
                return;
            }
            if queue.leader || queue.waiting.is_empty() {
                let (next, timed_out) = self.sleep(Sleep::Work, queue, Some(IDLE));
                queue = next;
                if timed_out && queue.waiting.is_empty() && !queue.leader {
                    queue.committer = false;
                    return;
                }
                continue;
            }
            queue = self.lead(queue, max, &process, &failed);
        }
    }

    /// A commit of the store waited `took` for its sync (any write's: they
    /// wait alike): a gathering leader waits no longer than that ([`Gathering::sync_took`]).
    pub(super) fn sync_took(&self, took: Duration) {
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.sync_nanos.store(nanos, Ordering::Relaxed);
    }

    /// The owner is gone: a committer thread fails what is queued and ends.
    pub(super) fn close(&self) {
        let mut queue = self.lock();
        queue.closed = true;
        self.wake(Sleep::Work, &queue);
    }

    /// Counts a job just queued and tells a gathering leader.
    fn arrive(&self, queue: &mut Queue<J, R>) {
        queue.inside += 1;
        let inside = queue.inside;
        queue.gathering.arrived(inside);
        if queue.waiting.len() >= queue.gathering_for {
            self.wake(Sleep::Arrived, queue);
        }
    }

    /// Leads one group: gathers, takes at most `max` jobs, processes them
    /// without the lock, and hands out the results.
    fn lead<'q>(
        &'q self,
        mut queue: MutexGuard<'q, Queue<J, R>>,
        max: usize,
        process: &impl Fn(Vec<J>) -> Vec<R>,
        failed: &impl Fn() -> R,
    ) -> MutexGuard<'q, Queue<J, R>> {
        queue.leader = true;
        queue = self.gather(queue, max);
        let take = queue.waiting.len().min(max);
        let batch: Vec<(Answer<R>, J)> = queue.waiting.drain(..take).collect();
        let inside = queue.inside;
        queue.gathering.started(inside);
        drop(queue);
        let started = Instant::now();
        let (answers, jobs): (Vec<Answer<R>>, Vec<J>) = batch.into_iter().unzip();
        let count = jobs.len();
        let mut results = catch_unwind(AssertUnwindSafe(|| process(jobs))).unwrap_or_default();
        if results.len() != count {
            results = (0..count).map(|_| failed()).collect();
        }
        let mut queue = self.lock();
        queue.gathering.finished(started.elapsed());
        for (answer, result) in answers.into_iter().zip(results) {
            match answer {
                Answer::Caller(ticket) => {
                    queue.finished.insert(ticket, result);
                }
                Answer::Later(slot) => {
                    queue.inside -= 1;
                    slot.fill(result);
                }
            }
        }
        queue.leader = false;
        self.wake(Sleep::Done, &queue);
        if queue.committer && !queue.waiting.is_empty() {
            self.wake(Sleep::Work, &queue);
        }
        queue
    }

    /// Waits, as the leader, as long as [`Gathering::wait`] says, or until
    /// as many jobs are queued as it waits for (at most `max`).
    fn gather<'q>(&self, mut queue: MutexGuard<'q, Queue<J, R>>, max: usize) -> MutexGuard<'q, Queue<J, R>> {
        let target = queue.gathering.target(max);
        let before = queue.waiting.len();
        queue.gathering.sync_took(Duration::from_nanos(self.sync_nanos.load(Ordering::Relaxed)));
        let Some(wait) = queue.gathering.wait(before, max) else {
            return queue;
        };
        let deadline = Instant::now() + wait;
        queue.gathering_for = target;
        while queue.waiting.len() < target {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
            queue = self.sleep(Sleep::Arrived, queue, Some(left)).0;
        }
        queue.gathering_for = 0;
        let paid = queue.waiting.len() >= target;
        queue.gathering.waited(paid);
        queue
    }

    /// Sleeps on the condvar `on`, counted asleep, until woken or `timeout`
    /// passes; true when it timed out.
    fn sleep<'q>(
        &self,
        on: Sleep,
        mut queue: MutexGuard<'q, Queue<J, R>>,
        timeout: Option<Duration>,
    ) -> (MutexGuard<'q, Queue<J, R>>, bool) {
        queue.asleep[on as usize] += 1;
        let condvar = self.condvar(on);
        let (mut queue, timed_out) = match timeout {
            None => (condvar.wait(queue).unwrap_or_else(PoisonError::into_inner), false),
            Some(timeout) => {
                let (queue, wait) = condvar.wait_timeout(queue, timeout).unwrap_or_else(PoisonError::into_inner);
                (queue, wait.timed_out())
            }
        };
        queue.asleep[on as usize] -= 1;
        (queue, timed_out)
    }

    /// Wakes whoever sleeps on `on`: every blocking caller on `done`, one
    /// thread on the others; nothing when nobody does.
    fn wake(&self, on: Sleep, queue: &Queue<J, R>) {
        if queue.asleep[on as usize] == 0 {
            return;
        }
        match on {
            Sleep::Done => self.done.notify_all(),
            Sleep::Arrived | Sleep::Work => self.condvar(on).notify_one(),
        }
    }

    fn condvar(&self, on: Sleep) -> &Condvar {
        match on {
            Sleep::Done => &self.done,
            Sleep::Arrived => &self.arrived,
            Sleep::Work => &self.work,
        }
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
    fn awaiting_callers_get_their_results_from_the_committer_and_share_groups_with_blocking_ones() {
        let group = Arc::new(GroupCommit::<u32, u32>::default());
        let batches = Arc::new(AtomicUsize::new(0));
        let process = {
            let batches = Arc::clone(&batches);
            move |jobs: Vec<u32>| {
                batches.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                jobs.into_iter().map(|j| j * 10).collect::<Vec<u32>>()
            }
        };
        let start = || {
            let (group, process) = (Arc::clone(&group), process.clone());
            std::thread::spawn(move || group.commit_queued(8, process, || u32::MAX));
            true
        };
        let later: Vec<Later<u32>> = (0..8).map(|i| group.submit(i, start, || u32::MAX)).collect();
        let blocking = {
            let (group, process) = (Arc::clone(&group), process.clone());
            std::thread::spawn(move || group.run(100, 8, process, || u32::MAX))
        };
        let results: Vec<u32> = later.into_iter().map(block_on).collect();
        assert_eq!(results, (0..8).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(blocking.join().unwrap(), 1000);
        assert!(batches.load(Ordering::SeqCst) < 9, "some jobs shared a group");
        group.close();
    }

    #[test]
    fn a_closed_queue_fails_what_awaits() {
        let group = Arc::new(GroupCommit::<u32, u32>::default());
        group.close();
        let start = || {
            let group = Arc::clone(&group);
            std::thread::spawn(move || group.commit_queued(8, |jobs| jobs, || 7));
            true
        };
        assert_eq!(block_on(group.submit(1, start, || 7)), 7);
        assert_eq!(block_on(group.submit(2, || false, || 9)), 9, "no thread to lead it: it fails at once");
    }

    /// Polls `future` on this thread until it is ready.
    fn block_on<R>(future: Later<R>) -> R {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(result) = future.as_mut().poll(&mut cx) {
                return result;
            }
            std::thread::park();
        }
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
