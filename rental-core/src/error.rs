//! The library's errors: [`Error`], each variant one problem `code` of
//! docs/API.md section 1, and [`StoreError`], what a store reports. Both live
//! here, apart from `store/`, so that the domain imports nothing of the store.

use chrono::NaiveDate;

use crate::basics::booking_status::Status;
pub use crate::basics::field_error::FieldError;
use crate::basics::ids::IdError;
use crate::basics::promo_refusal::PromoRefusal;
use crate::wording::MessageKind;

/// What went wrong in a call into the library.
///
/// Match on the variant to tell a user what to do; [`Error::code`] is the
/// same distinction as a stable string (the HTTP API's problem codes).
///
/// ```
/// use rental_core::{Error, Slug};
///
/// // A malformed identifier is a validation error naming its field.
/// let bad: Result<Slug, Error> = "Sea View".parse::<Slug>().map_err(Error::from);
/// let Err(Error::Validation(fields)) = bad else { panic!("accepted a bad slug") };
/// assert_eq!(fields[0].field, "slug");
/// assert_eq!(Error::from(rental_core::IdError::Slug("x y".into())).code(), "validation_failed");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Well-formed input that breaks a rule (dates, guests, stay length, a field's format).
    #[error("validation failed: {}", summary(.0))]
    Validation(Vec<FieldError>),
    /// The thing asked for does not exist (or, for a property, is not active).
    #[error("{0} not found")]
    NotFound(NotFound),
    /// The stay overlaps nights that are already held, booked or blocked.
    #[error("dates unavailable: {}", dates_list(.dates))]
    DatesUnavailable {
        /// The nights that are taken, in order.
        dates: Vec<NaiveDate>,
    },
    /// The action is not allowed from the booking's current state.
    #[error("cannot {action} a booking that is {from}{}", if *.channel_owned { " and owned by its channel" } else { "" })]
    InvalidTransition {
        /// The booking's status when the action was asked for.
        from: Status,
        /// The action's name (`confirm`, `cancel`, ...).
        action: &'static str,
        /// True when the booking was imported from a channel, which alone may change it.
        channel_owned: bool,
    },
    /// The thing belongs to a channel feed, which alone may change it
    /// (an imported block).
    #[error("{what} was imported from the {feed} feed, which owns it")]
    FeedOwned {
        /// What was asked for (`block blk_...`).
        what: String,
        /// The feed's name.
        feed: String,
    },
    /// A guest message of this kind cannot be sent for the booking as it is
    /// (no guest e-mail, a timed kind of a stay not confirmed, no `hostEmail`).
    #[error("cannot send {kind}: {reason}")]
    CannotSend {
        /// The kind asked for.
        kind: MessageKind,
        /// Why, in words.
        reason: &'static str,
    },
    /// The promo code given cannot be used for the stay (unknown, expired,
    /// used up, or not for these dates or this length); the stay breaks no other rule.
    #[error("the promo code cannot be used: {}", .reason.as_str())]
    PromoCode {
        /// Why not.
        reason: PromoRefusal,
    },
    /// The same idempotency key was used before with a different request.
    #[error("idempotency key was already used with a different request")]
    IdempotencyKeyReused,
    /// The storage layer failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Error {
    /// The stable, machine-readable problem code of docs/API.md section 1.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Validation(_) => "validation_failed",
            Error::NotFound(_) => "not_found",
            Error::DatesUnavailable { .. } => "dates_unavailable",
            Error::InvalidTransition { .. } | Error::FeedOwned { .. } => "invalid_transition",
            Error::IdempotencyKeyReused => "idempotency_key_reused",
            Error::CannotSend { .. } => "cannot_send",
            Error::PromoCode { .. } => "promo_code",
            Error::Store(StoreError::Locked | StoreError::Conflict(_) | StoreError::Unavailable(_)) => "unavailable",
            Error::Store(_) => "internal",
        }
    }

    /// A validation error about a single field.
    pub fn invalid(field: &str, code: &'static str, message: impl Into<String>) -> Self {
        Error::Validation(vec![FieldError::new(field, code, message)])
    }
}

/// A malformed identifier or time is a [`Error::Validation`] of its field
/// ([`IdError::field`]), so `?` works on `"sea-view".parse::<Slug>()` in a
/// function returning [`Result`].
///
/// [`Slug`]: crate::Slug
impl From<IdError> for Error {
    fn from(e: IdError) -> Self {
        Error::invalid(e.field(), "invalid", e.to_string())
    }
}

/// One field at fault is a [`Error::Validation`] of it alone.
impl From<FieldError> for Error {
    fn from(e: FieldError) -> Self {
        Error::Validation(vec![e])
    }
}

/// What kind of thing was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotFound {
    /// A property, by slug.
    Property(String),
    /// A booking, by code.
    Booking(String),
    /// An API key, by id or name.
    Key(String),
    /// A webhook, by id.
    Webhook(String),
    /// A block, by id.
    Block(String),
    /// A webhook delivery, by id.
    Delivery(String),
}

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotFound::Property(s) => write!(f, "property {s:?}"),
            NotFound::Booking(s) => write!(f, "booking {s:?}"),
            NotFound::Key(s) => write!(f, "api key {s:?}"),
            NotFound::Webhook(s) => write!(f, "webhook {s:?}"),
            NotFound::Block(s) => write!(f, "block {s:?}"),
            NotFound::Delivery(s) => write!(f, "delivery {s:?}"),
        }
    }
}

fn summary(errors: &[FieldError]) -> String {
    let parts: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.field, e.message)).collect();
    parts.join("; ")
}

fn dates_list(dates: &[NaiveDate]) -> String {
    let parts: Vec<String> = dates.iter().map(ToString::to_string).collect();
    parts.join(", ")
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The data directory is in use by another process, normally a running server.
    #[error("the data directory is in use by a running server")]
    Locked,
    /// Stored data could not be read back.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The backend failed (I/O, a full disk, ...).
    #[error("storage failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The write lost a race with another writer (a serialization failure, a
    /// deadlock, a key inserted meanwhile) and wrote nothing; done again from
    /// the start, it may succeed. [`Rental`](crate::Rental) retries it.
    #[error("the write conflicted with another writer: {0}")]
    Conflict(String),
    /// The backend cannot be reached now (a lost connection, a database
    /// shutting down); nothing was written, and a later try may succeed.
    #[error("storage is unavailable: {0}")]
    Unavailable(String),
}

impl StoreError {
    /// True when the same work, done again from the start, may succeed:
    /// [`StoreError::Conflict`] and [`StoreError::Unavailable`].
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Conflict(_) | StoreError::Unavailable(_))
    }
}
