//! The shared store on PostgreSQL: any number of processes on one database
//! (CONTRACT.md section 17). Write transactions are SERIALIZABLE; a lost race
//! is a [`StoreError::Conflict`] that [`Rental`](crate::Rental) retries.
//!
//! Records are JSONB documents beside the columns their indexes and
//! constraints need; docs/SEVERAL-SERVERS.md tells how to run it.

mod changes;
mod errors;
mod pool;
mod read;
mod schema;
mod write;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use postgres::Config;

use self::changes::Listener;
use self::pool::{Pool, Pooled};
use super::{ChangeMarks, Store, StoreError, StoreResult};

/// How many connections one process opens at most.
pub const MAX_CONNECTIONS: usize = 16;

/// A store in a PostgreSQL database (14 or newer), shared by every process pointed at it.
#[derive(Debug)]
pub struct PgStore {
    pool: Pool,
    listener: Listener,
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
        Ok(PgStore { pool, listener: Listener::new(config) })
    }

    /// Applies the migrations the database lacks, under an advisory lock (safe
    /// when several processes start at once); returns the versions applied.
    pub fn migrate(&self) -> StoreResult<Vec<i32>> {
        schema::migrate(self.pool.get()?.conn())
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

/// A transaction on one pooled connection: a read snapshot (REPEATABLE READ,
/// READ ONLY) or a write (SERIALIZABLE). Dropped without commit, it rolls back.
#[derive(Debug)]
pub struct PgTx<'a> {
    conn: RefCell<Pooled<'a>>,
    /// The change topics this write touched, bumped at commit.
    touched: BTreeSet<String>,
    open: bool,
}

impl PgTx<'_> {
    fn begin<'a>(pool: &'a Pool, sql: &str) -> StoreResult<PgTx<'a>> {
        let mut conn = pool.get()?;
        if let Err(e) = conn.conn().batch(sql) {
            conn.discard();
            return Err(e);
        }
        Ok(PgTx { conn: RefCell::new(conn), touched: BTreeSet::new(), open: true })
    }

    /// Runs `sql` and returns its rows; a failure leaves the transaction to roll back.
    fn query(
        &self,
        sql: &'static str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> StoreResult<Vec<postgres::Row>> {
        self.conn.borrow_mut().conn().query(sql, params)
    }

    fn execute(&self, sql: &'static str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> StoreResult<u64> {
        self.conn.borrow_mut().conn().execute(sql, params)
    }
}

impl Drop for PgTx<'_> {
    fn drop(&mut self) {
        if self.open {
            let mut conn = self.conn.borrow_mut();
            if conn.conn().batch("ROLLBACK").is_err() {
                conn.discard();
            }
        }
    }
}

impl Store for PgStore {
    type Read<'a> = PgTx<'a>;
    type Write<'a> = PgTx<'a>;

    fn read(&self) -> StoreResult<Self::Read<'_>> {
        PgTx::begin(&self.pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    fn write(&self) -> StoreResult<Self::Write<'_>> {
        PgTx::begin(&self.pool, "BEGIN ISOLATION LEVEL SERIALIZABLE")
    }

    fn change_marks(&self) -> Option<Arc<ChangeMarks>> {
        Some(self.listener.marks())
    }
}
