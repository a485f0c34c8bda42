//! The change signal: a thread per process that `LISTEN`s for the versions
//! other writes bump, and reads the whole `changes` table every
//! [`POLL`] in case a notification was missed (a reconnect, a long payload).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use postgres::Config;
use postgres::fallible_iterator::FallibleIterator;

use super::pool::Conn;
use crate::store::{ChangeMarks, StoreResult};

/// The notification channel writes announce their bumped versions on.
pub(super) const CHANNEL: &str = "rental_changes";

/// How long the listener waits for a notification before reading the table anyway.
pub const POLL: Duration = Duration::from_millis(500);

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
                .map_err(|e| tracing_free_warning(&e))
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

/// A thread that cannot start leaves the marks as they are: the caches then
/// see other processes' writes only after a restart, which is said on stderr.
fn tracing_free_warning(e: &std::io::Error) {
    eprintln!("rental: cannot start the PostgreSQL change listener: {e}");
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
    while !stop.load(Ordering::Acquire) {
        let mut heard = Vec::new();
        {
            let mut notifications = conn.client().notifications();
            match notifications.timeout_iter(POLL).next() {
                Ok(Some(n)) => heard.push(n.payload().to_owned()),
                Ok(None) => {}
                Err(e) => return Err(super::errors::store_error(&e)),
            }
            let mut pending = notifications.iter();
            while let Ok(Some(n)) = pending.next() {
                heard.push(n.payload().to_owned());
            }
        }
        if heard.is_empty() || heard.iter().any(String::is_empty) {
            read_table(&mut conn, marks)?;
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
