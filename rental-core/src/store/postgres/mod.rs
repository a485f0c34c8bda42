//! The shared store on PostgreSQL: any number of processes on one database
//! (CONTRACT.md section 17). Write transactions take turns under one
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

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use postgres::Config;

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
        let mut config: Config = url.parse().map_err(|e: postgres::Error| StoreError::Backend(e.to_string().into()))?;
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
pub const TABLES: &[&str] =
    &["properties", "bookings", "blocks", "api_keys", "webhooks", "outbox", "deliveries", "idempotency", "feeds"];

const COUNTS: [&str; 9] = [
    "SELECT count(*) FROM properties",
    "SELECT count(*) FROM bookings",
    "SELECT count(*) FROM blocks",
    "SELECT count(*) FROM api_keys",
    "SELECT count(*) FROM webhooks",
    "SELECT count(*) FROM outbox",
    "SELECT count(*) FROM deliveries",
    "SELECT count(*) FROM idempotency",
    "SELECT count(*) FROM feeds",
];

/// The advisory lock every write transaction takes first and holds until it
/// ends: writers take turns across processes, as redb's do within one. Under
/// it, READ COMMITTED is serializable, and each statement sees every write
/// before. A write for some properties holds it shared (see `scope.rs`).
const WRITE_LOCK: i64 = 0x72_65_6e_74_61_6c_77;

/// A transaction on one pooled connection: a read snapshot (REPEATABLE READ,
/// READ ONLY) or a write (READ COMMITTED, under [`WRITE_LOCK`]). Dropped
/// without commit, it rolls back.
#[derive(Debug)]
pub struct PgTx<'a> {
    conn: RefCell<Pooled<'a>>,
    /// Where a write's bumped change topics go after its commit.
    announcer: &'a Announcer,
    /// The change topics this write touched, bumped at commit.
    touched: BTreeSet<String>,
    open: bool,
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
        let mut conn = store.pool.get()?;
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
        let begun = conn.conn().batch(&sql);
        if let Err(e) = begun {
            conn.discard();
            return Err(e);
        }
        Ok(PgTx {
            conn: RefCell::new(conn),
            announcer: &store.announcer,
            touched: BTreeSet::new(),
            open: true,
            locked: !matches!(what, Begin::Read),
            scope: RefCell::new(scope),
            local: RefCell::default(),
        })
    }

    /// Ends the transaction with `sql` (COMMIT or ROLLBACK), which also lets
    /// the next writer in. After a failure the link may be gone: the
    /// connection is closed, which ends the transaction too.
    fn end(&mut self, sql: &str) -> StoreResult<()> {
        self.open = false;
        let mut conn = self.conn.borrow_mut();
        let ended = conn.conn().batch(sql);
        if ended.is_err() {
            conn.discard();
        }
        ended
    }

    /// Sends the writes still waiting, then runs `sql` and returns its rows;
    /// a failure leaves the transaction to roll back.
    fn query(
        &self,
        sql: &'static str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> StoreResult<Vec<postgres::Row>> {
        self.flush()?;
        self.send_query(sql, params)
    }

    /// Sends the writes still waiting, then runs `sql`; returns how many rows it changed.
    fn execute(&self, sql: &'static str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> StoreResult<u64> {
        self.flush()?;
        self.send(sql, params)
    }

    /// Runs `sql` as it is, whatever waits.
    fn send_query(
        &self,
        sql: &'static str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> StoreResult<Vec<postgres::Row>> {
        self.conn.borrow_mut().conn().query(sql, params)
    }

    /// Runs `sql` as it is, whatever waits; returns how many rows it changed.
    fn send(&self, sql: &'static str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> StoreResult<u64> {
        self.conn.borrow_mut().conn().execute(sql, params)
    }
}

impl Drop for PgTx<'_> {
    fn drop(&mut self) {
        if self.open && self.end("ROLLBACK").is_err() {
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
}
