//! The change signal: each write bumps its topics' versions in the `changes`
//! table, and a thread per process announces them after the commit; a thread
//! per process `LISTEN`s for them and reads the whole table every [`POLL`] too,
//! in case an announcement was lost (a crash, a reconnect, a long payload).
//!
//! Announcing after the commit, not in the write: PostgreSQL lets one
//! transaction that notifies commit at a time, through its WAL flush, so
//! notifying inside every write would make every commit wait for the others.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_postgres::Config;

use super::pool::Conn;
use crate::store::{ChangeMarks, StoreResult};

/// The notification channel writes announce their bumped versions on.
pub(super) const CHANNEL: &str = "rental_changes";

/// How often the listener reads the whole table, whatever it heard.
pub const POLL: Duration = Duration::from_millis(500);

/// Up to this many bytes of `topic=version` lines ride on a notification;
/// past it the listeners read the `changes` table instead (NOTIFY takes 8000).
const MAX_PAYLOAD: usize = 7_000;

/// How long dropping the store waits for the announcements still queued.
const LAST_ANNOUNCEMENTS: Duration = Duration::from_secs(2);

/// Sends a notification in a transaction of its own that does not wait for
/// its WAL flush: a notification needs no durability, and PostgreSQL holds
/// its one-notifier-at-a-time lock until then.
const NOTIFY: &str = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)";

/// Starts the listening thread on first use; stops it when dropped.
#[derive(Debug)]
pub(super) struct Listener {
    config: Config,
    marks: Arc<ChangeMarks>,
    started: Mutex<bool>,
    stop: Arc<AtomicBool>,
}

impl Listener {
    pub(super) fn new(config: Config) -> Self {
        Listener { config, marks: Arc::default(), started: Mutex::new(false), stop: Arc::default() }
    }

    /// The marks, kept up to date by the thread from the first call on.
    pub(super) fn marks(&self) -> Arc<ChangeMarks> {
        let mut started = self.started.lock().unwrap_or_else(PoisonError::into_inner);
        if !*started {
            *started = true;
            let (config, marks, stop) = (self.config.clone(), Arc::clone(&self.marks), Arc::clone(&self.stop));
            // A first reading before any cache compares against the marks.
            if let Ok(mut conn) = Conn::open(&config) {
                let _ = read_table(&mut conn, &marks);
            }
            std::thread::Builder::new()
                .name("rental-pg-listen".into())
                .spawn(move || listen(&config, &marks, &stop))
                .map_err(|e| cannot_start("change listener", &e))
                .ok();
        }
        Arc::clone(&self.marks)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Says on stderr that a thread could not start. Without the listener, this
/// process's cache sees other processes' writes only after a restart; without
/// the announcer, the others see this one's writes by their poll alone.
fn cannot_start(thread: &str, e: &std::io::Error) {
    eprintln!("rental: cannot start the PostgreSQL {thread}: {e}");
}

/// Listens until `stop`, reconnecting after a failure.
fn listen(config: &Config, marks: &ChangeMarks, stop: &AtomicBool) {
    while !stop.load(Ordering::Acquire) {
        if let Err(_lost) = listen_once(config, marks, stop) {
            std::thread::sleep(POLL);
        }
    }
}

fn listen_once(config: &Config, marks: &ChangeMarks, stop: &AtomicBool) -> StoreResult<()> {
    let mut conn = Conn::open(config)?;
    conn.batch(&format!("LISTEN {CHANNEL}"))?;
    read_table(&mut conn, marks)?;
    let mut last_read = Instant::now();
    while !stop.load(Ordering::Acquire) {
        let mut heard = Vec::new();
        heard.extend(conn.notification(POLL)?);
        while let Some(payload) = conn.heard() {
            heard.push(payload);
        }
        if last_read.elapsed() >= POLL || heard.iter().any(String::is_empty) {
            read_table(&mut conn, marks)?;
            last_read = Instant::now();
        }
        for payload in &heard {
            for (topic, version) in payload.lines().filter_map(|l| l.rsplit_once('=')) {
                if let Ok(version) = version.parse() {
                    marks.note(topic, version);
                }
            }
        }
    }
    Ok(())
}

fn read_table(conn: &mut Conn, marks: &ChangeMarks) -> StoreResult<()> {
    for row in conn.query("SELECT topic, version FROM changes", &[])? {
        marks.note(row.get(0), row.get(1));
    }
    Ok(())
}

/// Announces the versions writes bumped, after their commits, from a thread
/// of its own (started on first use) with a connection of its own: the
/// writer does not wait for it. What queued meanwhile goes in one notification.
#[derive(Debug)]
pub(super) struct Announcer {
    config: Config,
    queue: Mutex<Option<Sender<String>>>,
    finished: Mutex<Option<Receiver<()>>>,
}

impl Announcer {
    pub(super) fn new(config: Config) -> Self {
        Announcer { config, queue: Mutex::new(None), finished: Mutex::new(None) }
    }

    /// Queues `lines` (`topic=version`, one a line) to be announced.
    pub(super) fn announce(&self, lines: String) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        if queue.is_none() {
            let (send, receive) = mpsc::channel();
            let (done, finished) = mpsc::channel();
            let config = self.config.clone();
            let started = std::thread::Builder::new().name("rental-pg-notify".into()).spawn(move || {
                announce_all(&config, &receive);
                let _ = done.send(());
            });
            match started {
                Ok(_) => {
                    *queue = Some(send);
                    *self.finished.lock().unwrap_or_else(PoisonError::into_inner) = Some(finished);
                }
                // The listeners' poll finds the versions in the table instead.
                Err(e) => return cannot_start("change announcer", &e),
            }
        }
        if let Some(queue) = queue.as_ref() {
            let _ = queue.send(lines);
        }
    }
}

impl Drop for Announcer {
    /// Sends what is still queued (a command that revokes a key, then exits),
    /// waiting up to [`LAST_ANNOUNCEMENTS`].
    fn drop(&mut self) {
        drop(self.queue.lock().unwrap_or_else(PoisonError::into_inner).take());
        if let Some(finished) = self.finished.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = finished.recv_timeout(LAST_ANNOUNCEMENTS);
        }
    }
}

/// Announces each batch of queued lines until the queue closes. A failed
/// send drops the connection (the next batch opens one); the lines it
/// carried reach the listeners by their poll.
fn announce_all(config: &Config, queue: &Receiver<String>) {
    let mut conn: Option<Conn> = None;
    while let Ok(first) = queue.recv() {
        let mut payload = first;
        while let Ok(more) = queue.try_recv() {
            payload.push('\n');
            payload.push_str(&more);
        }
        if payload.len() > MAX_PAYLOAD {
            payload.clear();
        }
        if conn.is_none() {
            conn = Conn::open(config).ok();
        }
        let sent = conn.as_mut().map(|c| c.query(NOTIFY, &[&CHANNEL, &payload]));
        if !matches!(sent, Some(Ok(_))) {
            conn = None;
        }
    }
}
