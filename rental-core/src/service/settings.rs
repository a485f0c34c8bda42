//! A [`Rental`](super::Rental)'s settings (docs/API.md section 11): the booking codes'
//! prefix, expiry, retention, feed pulls, and whether mail and payments are on.

use chrono::TimeDelta;
use chrono_tz::Tz;

/// Settings of a [`Rental`](super::Rental) (docs/API.md section 11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Prefix of booking codes (`BK`).
    pub code_prefix: String,
    /// The zone of the summary's top-level date.
    pub timezone: Tz,
    /// How long a pending, unpaid booking waits for payment; `None` never expires.
    pub checkout_ttl: Option<TimeDelta>,
    /// How long finished deliveries and the outbox events behind them are
    /// kept (docs/API.md section 18).
    pub retention: TimeDelta,
    /// How often channel feeds are pulled; a feed is stale after 3 of these
    /// without a successful pull (docs/API.md section 15).
    pub sync_interval: TimeDelta,
    /// Where new requests are announced (`hostEmail`, docs/API.md section 21); empty: nowhere.
    pub host_email: String,
    /// Whether a mail server sends the guest messages (`smtp`, docs/API.md
    /// section 21). `false`: a message due at once is recorded `skipped`
    /// (`no_mail_server`) as it is made, in the booking's own write, rather
    /// than waiting for a sender to skip it; one due later waits, in case a
    /// mail server is set by then.
    pub mail_server: bool,
    /// Whether a payment provider takes the guests' payments (`[payments]`):
    /// the default of a property's `accessRequiresPayment` (docs/API.md
    /// section 24), for the stay page and `check_in_instructions` alike.
    pub payment_provider: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            code_prefix: "BK".to_owned(),
            timezone: chrono_tz::UTC,
            checkout_ttl: Some(TimeDelta::hours(24)),
            retention: TimeDelta::days(30),
            sync_interval: TimeDelta::minutes(30),
            host_email: String::new(),
            mail_server: true,
            payment_provider: false,
        }
    }
}
