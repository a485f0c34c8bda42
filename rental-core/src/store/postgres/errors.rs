//! How a PostgreSQL failure becomes a [`StoreError`]: races and lost
//! connections are transient (tried again), everything else is not.

use tokio_postgres::error::SqlState;

use crate::store::StoreError;

/// The SQLSTATEs of a write that lost a race and may succeed from the start:
/// serialization failure, deadlock, a unique or exclusion constraint hit by a
/// row another transaction committed meanwhile, a lock not available.
const CONFLICTS: [SqlState; 5] = [
    SqlState::T_R_SERIALIZATION_FAILURE,
    SqlState::T_R_DEADLOCK_DETECTED,
    SqlState::UNIQUE_VIOLATION,
    SqlState::EXCLUSION_VIOLATION,
    SqlState::LOCK_NOT_AVAILABLE,
];

/// The SQLSTATEs of a server that cannot serve now: shutting down, starting,
/// out of connections.
const UNAVAILABLE: [SqlState; 5] = [
    SqlState::ADMIN_SHUTDOWN,
    SqlState::CRASH_SHUTDOWN,
    SqlState::CANNOT_CONNECT_NOW,
    SqlState::TOO_MANY_CONNECTIONS,
    SqlState::READ_ONLY_SQL_TRANSACTION,
];

/// The store error of a failed PostgreSQL call.
pub(super) fn store_error(e: &tokio_postgres::Error) -> StoreError {
    if let Some(code) = e.code() {
        if CONFLICTS.contains(code) {
            return StoreError::Conflict(format!("{} ({})", message(e), code.code()));
        }
        if UNAVAILABLE.contains(code) || code.code().starts_with("08") {
            return StoreError::Unavailable(message(e));
        }
        return StoreError::Backend(message(e).into());
    }
    if e.is_closed() || io_failure(e) {
        return StoreError::Unavailable(message(e));
    }
    StoreError::Backend(message(e).into())
}

/// The server's own message when there is one, else the client's.
fn message(e: &tokio_postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), |db| db.message().to_owned())
}

/// True when the cause is the socket: refused, reset, timed out.
fn io_failure(e: &tokio_postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}
