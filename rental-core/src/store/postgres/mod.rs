//! The shared store on PostgreSQL: any number of processes on one database
//! (docs/API.md section 17). Write transactions take turns under one
//! advisory lock, groups of booking creations per property (`scope.rs`); a
//! lost race (a key another writer committed first, a lost connection) is a
//! transient [`StoreError`] that [`Rental`](crate::Rental) retries.
//!
//! Records are JSON documents beside the columns their indexes and
//! constraints need; docs/SEVERAL-SERVERS.md tells how to run it.

mod changes;
mod copy;
mod errors;
mod flush;
mod local;
mod pool;
mod read;
mod schema;
mod scope;
mod write;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::Arc;

use tokio_postgres::types::ToSql;
use tokio_postgres::{Config, Row};

use self::changes::{Announcer, Listener};
pub use self::copy::Counts;
use self::local::Local;
use self::pool::{Pool, Pooled};
use super::{ChangeMarks, Store, StoreError, StoreResult};

/// How many connections one process opens at most.
pub const MAX_CONNECTIONS: usize = 16;

/// A store in a PostgreSQL database (14 or newer), shared by every process pointed at it.
#[derive(Debug)]
pub struct PgStore {
    pool: Pool,
    listener: Listener,
    announcer: Announcer,
}

/// True when `url` names a PostgreSQL database (`postgres://` or `postgresql://`).
///
/// ```
/// use rental_core::store::is_postgres_url;
///
/// assert!(is_postgres_url("postgres://rental@db.internal/rental"));
/// assert!(is_postgres_url("postgresql://localhost:5433/rental"));
/// assert!(!is_postgres_url("./rental-data"));
/// ```
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

impl PgStore {
    /// Connects to the database at `url` and brings its schema up to date
    /// (see [`PgStore::migrate`]).
    pub fn open(url: &str) -> StoreResult<Self> {
        let store = Self::connect(url)?;
        store.migrate()?;
        Ok(store)
    }

    /// Connects to the database at `url` without touching its schema.
    pub fn connect(url: &str) -> StoreResult<Self> {
        if !is_postgres_url(url) {
            return Err(StoreError::Backend("a database URL starts with postgres:// or postgresql://".into()));
        }
        let mut config: Config =
            url.parse().map_err(|e: tokio_postgres::Error| StoreError::Backend(e.to_string().into()))?;
        if config.get_application_name().is_none() {
            config.application_name("rental");
        }
        let pool = Pool::new(config.clone(), MAX_CONNECTIONS);
        drop(pool.get()?);
        Ok(PgStore { pool, listener: Listener::new(config.clone()), announcer: Announcer::new(config) })
    }

    /// Applies the migrations the database lacks, under an advisory lock (safe
    /// when several processes start at once); returns the versions applied.
    pub fn migrate(&self) -> StoreResult<Vec<i32>> {
        schema::migrate(self.pool.get()?.conn(), Self::schema_version())
    }

    /// Applies the migrations the database lacks up to `version` alone, as
    /// an older rental would have left it: for testing an upgrade.
    #[doc(hidden)]
    pub fn migrate_to(&self, version: i32) -> StoreResult<Vec<i32>> {
        schema::migrate(self.pool.get()?.conn(), version)
    }

    /// The newest schema version this build knows.
    pub fn schema_version() -> i32 {
        schema::MIGRATIONS.last().map_or(0, |(v, _)| *v)
    }

    /// How many rows each table holds, by table name, in the order [`TABLES`] lists them.
    pub fn counts(&self) -> StoreResult<Vec<(&'static str, i64)>> {
        let mut conn = self.pool.get()?;
        let mut out = Vec::with_capacity(TABLES.len());
        for table in TABLES {
            let rows = conn.conn().query(COUNTS[out.len()], &[])?;
            out.push((*table, rows.first().map_or(0, |r| r.get(0))));
        }
        Ok(out)
    }
}

/// The tables that hold records, as [`PgStore::counts`] reports them.
pub const TABLES: &[&str] = &["properties", "bookings", "blocks", "outbox", "deliveries", "idempotency", "records"];

const COUNTS: [&str; 7] = [
    "SELECT count(*) FROM properties",
    "SELECT count(*) FROM bookings",
    "SELECT count(*) FROM blocks",
    "SELECT count(*) FROM outbox",
    "SELECT count(*) FROM deliveries",
    "SELECT count(*) FROM idempotency",
    "SELECT count(*) FROM records",
];

/// The advisory lock every write transaction takes first and holds until it
/// ends: writers take turns across processes, as redb's do within one. Under
/// it, READ COMMITTED is serializable, and each statement sees every write
/// before. A write for some properties holds it shared (see `scope.rs`).
const WRITE_LOCK: i64 = 0x72_65_6e_74_61_6c_77;

/// A transaction on one pooled connection: a read snapshot (REPEATABLE READ,
/// READ ONLY) or a write (READ COMMITTED, under `WRITE_LOCK`). Dropped
/// without commit, it rolls back.
///
/// Its `BEGIN` (and its locks) go out with its first statement, and its
/// last write with its `COMMIT`: one round trip each, not three. Until the
/// first statement it has seen nothing, so it is as if begun then.
#[derive(Debug)]
pub struct PgTx<'a> {
    conn: RefCell<Pooled<'a>>,
    /// The statements that begin the transaction, until sent with the first statement.
    unsent_begin: RefCell<Option<String>>,
    /// Where a write's bumped change topics go after its commit.
    announcer: &'a Announcer,
    /// The change topics this write touched, bumped at commit.
    touched: BTreeSet<String>,
    open: Cell<bool>,
    /// True for a write, which holds [`WRITE_LOCK`] until it ends.
    locked: bool,
    /// For a write for some properties ([`Store::write_for`]), which holds
    /// [`WRITE_LOCK`] shared: the properties whose locks it holds (see
    /// `scope.rs`). `None`: a read, or a write that holds the lock exclusive.
    scope: RefCell<Option<BTreeSet<String>>>,
    /// What a write knows and has not sent yet (unused by reads).
    local: RefCell<Local>,
}

/// What a transaction is opened for.
enum Begin<'s> {
    Read,
    Write,
    /// A write for these properties alone (it may reach further; see `scope.rs`).
    WriteFor(&'s [&'s str]),
}

impl PgTx<'_> {
    fn begin<'p>(store: &'p PgStore, what: &Begin<'_>) -> StoreResult<PgTx<'p>> {
        let conn = store.pool.get()?;
        // Read committed: each statement after the locks sees every write committed before them.
        let (sql, scope) = match what {
            Begin::Read => ("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY".to_owned(), None),
            Begin::Write => {
                (format!("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({WRITE_LOCK})"), None)
            }
            Begin::WriteFor(properties) => {
                let held: BTreeSet<String> = properties.iter().map(|s| (*s).to_owned()).collect();
                (scope::begin_for(&held), Some(held))
            }
        };
        Ok(PgTx {
            conn: RefCell::new(conn),
            unsent_begin: RefCell::new(Some(sql)),
            announcer: &store.announcer,
            touched: BTreeSet::new(),
            open: Cell::new(true),
            locked: !matches!(what, Begin::Read),
            scope: RefCell::new(scope),
            local: RefCell::default(),
        })
    }

    /// Ends the transaction with `sql` (COMMIT or ROLLBACK), which also lets
    /// the next writer in; one that sent nothing has nothing to end. After a
    /// failure the link may be gone: the connection is closed, which ends the
    /// transaction too.
    fn end(&self, sql: &str) -> StoreResult<()> {
        self.open.set(false);
        if self.unsent_begin.borrow_mut().take().is_some() {
            return Ok(());
        }
        let mut conn = self.conn.borrow_mut();
        let ended = conn.conn().batch(sql);
        if ended.is_err() {
            conn.discard();
        }
        ended
    }

    /// Sends the writes still waiting, then runs `sql` and returns its rows;
    /// a failure leaves the transaction to roll back.
    fn query(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        self.flush()?;
        self.send_query(sql, params)
    }

    /// Sends the writes still waiting, then runs `sql`; returns how many rows it changed.
    fn execute(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<u64> {
        self.flush()?;
        self.send(sql, params)
    }

    /// Sends the writes still waiting, then runs `queries` in one round trip;
    /// returns each one's rows.
    fn query_many(&self, queries: &[(&'static str, &[&(dyn ToSql + Sync)])]) -> StoreResult<Vec<Vec<Row>>> {
        self.flush()?;
        let begin = self.unsent_begin.borrow_mut().take();
        self.conn.borrow_mut().conn().query_many(begin.as_deref(), queries)
    }

    /// Runs `sql` as it is, whatever waits (after the `BEGIN`, if not sent yet).
    fn send_query(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        let begin = self.unsent_begin.borrow_mut().take();
        self.conn.borrow_mut().conn().query_between(begin.as_deref(), sql, params, None)
    }

    /// Runs `sql` as it is, whatever waits; returns how many rows it changed.
    fn send(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<u64> {
        let begin = self.unsent_begin.borrow_mut().take();
        self.conn.borrow_mut().conn().execute_between(begin.as_deref(), sql, params, None)
    }

    /// Runs `sql` as it is, and commits in the same round trip (when `sql`
    /// fails, nothing is committed); returns its rows.
    fn send_query_and_commit(&self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        self.open.set(false);
        let begin = self.unsent_begin.borrow_mut().take();
        let mut conn = self.conn.borrow_mut();
        let rows = conn.conn().query_between(begin.as_deref(), sql, params, Some("COMMIT"));
        if rows.is_err() {
            conn.discard();
        }
        rows
    }
}

impl Drop for PgTx<'_> {
    fn drop(&mut self) {
        if self.open.get() && self.end("ROLLBACK").is_err() {
            self.conn.borrow_mut().discard();
        }
    }
}

impl Store for PgStore {
    type Read<'a> = PgTx<'a>;
    type Write<'a> = PgTx<'a>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        PgTx::begin(self, &Begin::Read)
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        PgTx::begin(self, &Begin::Write)
    }

    /// Holds the write lock shared and these properties' locks, so that
    /// writes for other properties, from any process, run beside this one.
    fn write_for(&self, properties: &[&str]) -> StoreResult<Self::Write<'_>> {
        PgTx::begin(self, &Begin::WriteFor(properties))
    }

    /// Up to 64, as redb: writes take turns across processes (the advisory
    /// write lock), so a group shares the lock's round trips and one commit.
    fn group_commit(&self) -> usize {
        64
    }

    fn change_marks(&self) -> Option<Arc<ChangeMarks>> {
        Some(self.listener.marks())
    }

    /// Current when the newest migration the database records is this build's newest.
    fn schema_current(&self) -> StoreResult<bool> {
        let mut conn = self.pool.get()?;
        let rows = conn.conn().query("SELECT coalesce(max(version), 0) FROM schema_migrations", &[])?;
        Ok(rows.first().map(|r| r.get::<_, i32>(0)) == Some(Self::schema_version()))
    }
}
