//! A small pool of PostgreSQL connections: each transaction borrows one and
//! gives it back; a broken one is dropped, and a new one is opened when needed.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};

use super::errors::store_error;
use crate::store::{StoreError, StoreResult};

/// One connection and the statements prepared on it.
pub(super) struct Conn {
    /// Always `Some` until dropped: closing it blocks, so the drop steps off the runtime too.
    client: Option<Client>,
    statements: HashMap<&'static str, Statement>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            off_runtime(move || drop(client));
        }
    }
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("statements", &self.statements.len()).finish_non_exhaustive()
    }
}

impl Conn {
    /// Opens a connection.
    pub(super) fn open(config: &Config) -> StoreResult<Self> {
        let client = off_runtime(|| config.connect(NoTls)).map_err(|e| match store_error(&e) {
            StoreError::Backend(b) => StoreError::Unavailable(b.to_string()),
            other => other,
        })?;
        Ok(Conn { client: Some(client), statements: HashMap::new() })
    }

    /// Runs `sql` (prepared once per connection) and returns its rows.
    pub(super) fn query(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        let statement = self.statement(sql)?;
        off_runtime(|| self.client().query(&statement, params)).map_err(|e| store_error(&e))
    }

    /// Runs `sql` (prepared once per connection) and returns how many rows it changed.
    pub(super) fn execute(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<u64> {
        let statement = self.statement(sql)?;
        off_runtime(|| self.client().execute(&statement, params)).map_err(|e| store_error(&e))
    }

    /// Runs statements without parameters (transaction control, migrations).
    pub(super) fn batch(&mut self, sql: &str) -> StoreResult<()> {
        off_runtime(|| self.client().batch_execute(sql)).map_err(|e| store_error(&e))
    }

    /// The connection itself, for notifications.
    pub(super) fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("a connection's client is present until dropped")
    }

    /// True when the server or the network closed the connection.
    fn is_closed(&self) -> bool {
        self.client.as_ref().is_none_or(Client::is_closed)
    }

    fn statement(&mut self, sql: &'static str) -> StoreResult<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = off_runtime(|| self.client().prepare(sql)).map_err(|e| store_error(&e))?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Runs `f`, which blocks on the network, where blocking is allowed: the
/// synchronous client drives its own runtime and may not run on a tokio
/// worker thread, so on one it first steps off with `block_in_place`.
pub(super) fn off_runtime<T>(f: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// At most `max` connections to one database, opened as needed.
pub(super) struct Pool {
    config: Config,
    max: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("max", &self.max).finish_non_exhaustive()
    }
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Conn>,
    open: usize,
}

impl Pool {
    /// A pool of at most `max` connections made from `config`.
    pub(super) fn new(config: Config, max: usize) -> Self {
        Pool { config, max, state: Mutex::default(), freed: Condvar::new() }
    }

    /// An idle connection, a new one while fewer than `max` are open, or the next one given back.
    pub(super) fn get(&self) -> StoreResult<Pooled<'_>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(conn) = state.idle.pop() {
                if !conn.is_closed() {
                    return Ok(Pooled { pool: self, conn: Some(conn) });
                }
                state.open -= 1;
                continue;
            }
            if state.open < self.max {
                state.open += 1;
                drop(state);
                return match Conn::open(&self.config) {
                    Ok(conn) => Ok(Pooled { pool: self, conn: Some(conn) }),
                    Err(e) => {
                        self.forget();
                        Err(e)
                    }
                };
            }
            state = self.freed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// One connection fewer is open.
    fn forget(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).open -= 1;
        self.freed.notify_one();
    }
}

/// A borrowed connection, given back (or dropped, when broken) at the end.
#[derive(Debug)]
pub(super) struct Pooled<'a> {
    pool: &'a Pool,
    conn: Option<Conn>,
}

impl Pooled<'_> {
    /// The connection.
    pub(super) fn conn(&mut self) -> &mut Conn {
        self.conn.as_mut().expect("a pooled connection is present until dropped")
    }

    /// Drops the connection instead of giving it back (its state is unknown).
    pub(super) fn discard(&mut self) {
        if self.conn.take().is_some() {
            self.pool.forget();
        }
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        if conn.is_closed() {
            self.pool.forget();
            return;
        }
        self.pool.state.lock().unwrap_or_else(PoisonError::into_inner).idle.push(conn);
        self.pool.freed.notify_one();
    }
}
