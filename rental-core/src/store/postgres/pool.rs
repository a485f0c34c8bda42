//! A small pool of PostgreSQL connections: each transaction borrows one and
//! gives it back; a broken one is dropped, and a new one is opened when needed.

use std::collections::HashMap;
use std::future::poll_fn;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::try_join_all;
use tokio::runtime::Runtime;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Row, Statement};

use super::errors::store_error;
use crate::store::{StoreError, StoreResult};

/// One connection, the statements prepared on it, and the runtime that
/// drives it: a current-thread runtime, run by whichever thread sends a
/// statement, so that several statements can go out in one round trip.
pub(super) struct Conn {
    /// Always `Some` until dropped: dropping it closes the connection.
    client: Option<Client>,
    /// Always `Some` until dropped: shutting it down blocks, so the drop steps off the runtime too.
    runtime: Option<Runtime>,
    /// Reads the connection's messages; ends when the connection does.
    driver: Option<JoinHandle<()>>,
    /// The payloads of the notifications heard (see [`Conn::notification`]).
    notifications: UnboundedReceiver<String>,
    statements: HashMap<&'static str, Statement>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let (client, runtime, driver) = (self.client.take(), self.runtime.take(), self.driver.take());
        off_runtime(move || {
            // Without its client the connection says goodbye to the server and ends.
            drop(client);
            if let (Some(runtime), Some(driver)) = (runtime, driver) {
                let _ = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(1), driver).await });
            }
        });
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
        let unavailable = |e: &tokio_postgres::Error| match store_error(e) {
            StoreError::Backend(b) => StoreError::Unavailable(b.to_string()),
            other => other,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Unavailable(format!("cannot start a connection's runtime: {e}")))?;
        let (client, mut connection) =
            off_runtime(|| runtime.block_on(config.connect(NoTls))).map_err(|e| unavailable(&e))?;
        let (heard, notifications) = unbounded_channel();
        let driver = runtime.spawn(async move {
            while let Some(Ok(message)) = poll_fn(|cx| connection.poll_message(cx)).await {
                if let AsyncMessage::Notification(n) = message {
                    let _ = heard.send(n.payload().to_owned());
                }
            }
        });
        Ok(Conn {
            client: Some(client),
            runtime: Some(runtime),
            driver: Some(driver),
            notifications,
            statements: HashMap::new(),
        })
    }

    /// Runs `sql` (prepared once per connection) and returns its rows.
    pub(super) fn query(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        self.query_between(None, sql, params, None)
    }

    /// Runs statements without parameters (transaction control, migrations).
    pub(super) fn batch(&mut self, sql: &str) -> StoreResult<()> {
        self.run(|client| client.batch_execute(sql))
    }

    /// [`Conn::query`], with statements without parameters sent `before` it
    /// (`BEGIN`) and `after` it (`COMMIT`) in the same round trip.
    pub(super) fn query_between(
        &mut self,
        before: Option<&str>,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
        after: Option<&str>,
    ) -> StoreResult<Vec<Row>> {
        let statement = self.statement(sql)?;
        self.between(before, |client| client.query(&statement, params), after)
    }

    /// Runs `queries` (each prepared once per connection) in one round trip,
    /// after `before` as in [`Conn::query_between`]; returns each one's rows.
    pub(super) fn query_many(
        &mut self,
        before: Option<&str>,
        queries: &[(&'static str, &[&(dyn ToSql + Sync)])],
    ) -> StoreResult<Vec<Vec<Row>>> {
        let statements = queries.iter().map(|(sql, _)| self.statement(sql)).collect::<StoreResult<Vec<_>>>()?;
        let queries = statements.iter().zip(queries).map(|(statement, (_, params))| (statement, *params));
        self.between(
            before,
            |client| try_join_all(queries.map(|(statement, params)| client.query(statement, params))),
            None,
        )
    }

    /// Runs `sql` (prepared once per connection) and returns how many rows it
    /// changed, with statements sent before and after it as in [`Conn::query_between`].
    pub(super) fn execute_between(
        &mut self,
        before: Option<&str>,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
        after: Option<&str>,
    ) -> StoreResult<u64> {
        let statement = self.statement(sql)?;
        self.between(before, |client| client.execute(&statement, params), after)
    }

    /// Sends `before`, the statement `call` makes, and `after` at once, in
    /// that order (each is sent when first polled): the server runs them so, each after the one before has ended.
    /// The first failure is returned. A statement after a failed one runs in
    /// a failed transaction (a `COMMIT` there rolls back), so a `BEGIN` that
    /// fails leaves nothing done.
    fn between<'c, T, F>(
        &'c self,
        before: Option<&'c str>,
        call: impl FnOnce(&'c Client) -> F,
        after: Option<&'c str>,
    ) -> StoreResult<T>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        self.run(|client| async move {
            let batch = |sql: Option<&'c str>| async move {
                match sql {
                    Some(sql) => client.batch_execute(sql).await,
                    None => Ok(()),
                }
            };
            let (before, result, after) = tokio::join!(biased; batch(before), call(client), batch(after));
            before.and(result).and_then(|result| after.map(|()| result))
        })
    }

    /// The payload of the next notification heard within `wait` (after
    /// `LISTEN`), or `None`; an error once the connection is lost.
    pub(super) fn notification(&mut self, wait: Duration) -> StoreResult<Option<String>> {
        let Conn { runtime, notifications, .. } = self;
        let runtime = runtime.as_ref().expect("a connection's runtime is present until dropped");
        let heard = off_runtime(|| runtime.block_on(async { tokio::time::timeout(wait, notifications.recv()).await }));
        match heard {
            Ok(Some(payload)) => Ok(Some(payload)),
            Ok(None) => Err(StoreError::Unavailable("the connection to PostgreSQL closed".into())),
            Err(_elapsed) => Ok(None),
        }
    }

    /// The payload of a notification already heard, if any.
    pub(super) fn heard(&mut self) -> Option<String> {
        self.notifications.try_recv().ok()
    }

    /// True when the server or the network closed the connection.
    fn is_closed(&self) -> bool {
        self.client.as_ref().is_none_or(Client::is_closed)
    }

    fn statement(&mut self, sql: &'static str) -> StoreResult<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.run(|client| client.prepare(sql))?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }

    /// Runs the future `call` makes on this connection's client to its end.
    fn run<'c, T, F>(&'c self, call: impl FnOnce(&'c Client) -> F) -> StoreResult<T>
    where
        F: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let client = self.client.as_ref().expect("a connection's client is present until dropped");
        let runtime = self.runtime.as_ref().expect("a connection's runtime is present until dropped");
        let call = call(client);
        off_runtime(|| runtime.block_on(call)).map_err(|e| store_error(&e))
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
