//! The kinds of guest message (docs/API.md section 21): what each is about,
//! whom it goes to, its name in JSON, keys and templates, when a timed one
//! falls due and which booking statuses it may be sent for.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Lead;
use crate::basics::booking_status::Status;

/// What a message is about, and so its wording and recipient.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// To the guest: a request was received and waits for the host.
    RequestReceived,
    /// To the host (`hostEmail`): a new request from the page, the API or an agent.
    HostRequest,
    /// To the host (`hostEmail`): a request still unanswered lapses in two hours.
    HostRequestExpiring,
    /// To the guest: the stay is confirmed.
    Confirmed,
    /// To the guest: the dates or guests changed.
    Changed,
    /// To the guest: cancelled, by someone or by checkout expiry.
    Cancelled,
    /// To the guest: the door code, its window, the Wi-Fi and the arrival notes.
    CheckInInstructions,
    /// To the guest: departure is near.
    CheckOutReminder,
    /// To the guest: an installment (or the deposit hold) charged off-session was refused;
    /// they pay on the stay page before the grace period ends.
    PaymentFailed,
}

impl MessageKind {
    /// Every kind, in the order of docs/API.md section 21.
    pub const ALL: [MessageKind; 9] = [
        MessageKind::RequestReceived,
        MessageKind::HostRequest,
        MessageKind::HostRequestExpiring,
        MessageKind::Confirmed,
        MessageKind::Changed,
        MessageKind::Cancelled,
        MessageKind::CheckInInstructions,
        MessageKind::CheckOutReminder,
        MessageKind::PaymentFailed,
    ];

    /// The name used in JSON, keys and templates (`check_in_instructions`).
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::RequestReceived => "request_received",
            MessageKind::HostRequest => "host_request",
            MessageKind::HostRequestExpiring => "host_request_expiring",
            MessageKind::Confirmed => "confirmed",
            MessageKind::Changed => "changed",
            MessageKind::Cancelled => "cancelled",
            MessageKind::CheckInInstructions => "check_in_instructions",
            MessageKind::CheckOutReminder => "check_out_reminder",
            MessageKind::PaymentFailed => "payment_failed",
        }
    }

    /// True for the kinds that go to the host (`hostEmail`), not the guest.
    pub fn is_for_host(self) -> bool {
        matches!(self, MessageKind::HostRequest | MessageKind::HostRequestExpiring)
    }

    /// True for the kinds timed to the stay (sent before arrival or departure).
    pub fn is_timed(self) -> bool {
        self.timing().is_some()
    }

    /// When a kind timed to the stay falls due; `None` for a kind sent when
    /// its cause is written. A confirmed stay records one of each timed kind.
    pub fn timing(self) -> Option<Timing> {
        match self {
            MessageKind::CheckInInstructions => {
                Some(Timing { to: TimedTo::Arrival, default_lead: Lead::CHECK_IN, again_for_new_code: true })
            }
            MessageKind::CheckOutReminder => {
                Some(Timing { to: TimedTo::Departure, default_lead: Lead::CHECK_OUT, again_for_new_code: false })
            }
            MessageKind::RequestReceived
            | MessageKind::HostRequest
            | MessageKind::HostRequestExpiring
            | MessageKind::Confirmed
            | MessageKind::Changed
            | MessageKind::Cancelled
            | MessageKind::PaymentFailed => None,
        }
    }

    /// Whether a message of this kind still says something true of a booking
    /// in `status` (sent again by hand, say): a request is acknowledged while
    /// pending, a confirmation and the stay's timed messages only for a
    /// confirmed stay, a cancellation only for a cancelled one. The error is why not.
    ///
    /// ```
    /// use rental_core::{Status, message::MessageKind};
    /// assert!(MessageKind::Confirmed.fits_status(Status::Confirmed).is_ok());
    /// assert_eq!(MessageKind::Cancelled.fits_status(Status::Pending), Err("it is sent for cancelled bookings only"));
    /// ```
    pub fn fits_status(self, status: Status) -> Result<(), &'static str> {
        let (fits, otherwise) = match self {
            MessageKind::RequestReceived | MessageKind::HostRequest | MessageKind::HostRequestExpiring => {
                (status == Status::Pending, "it is sent for pending requests only")
            }
            MessageKind::Confirmed | MessageKind::CheckInInstructions | MessageKind::CheckOutReminder => {
                (status == Status::Confirmed, "it is sent for confirmed stays only")
            }
            MessageKind::Changed | MessageKind::PaymentFailed => {
                (status != Status::Cancelled, "it is not sent for a cancelled booking")
            }
            MessageKind::Cancelled => (status == Status::Cancelled, "it is sent for cancelled bookings only"),
        };
        if fits { Ok(()) } else { Err(otherwise) }
    }
}

/// When a kind timed to the stay falls due ([`MessageKind::timing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// The moment of the stay its lead is counted back from.
    pub to: TimedTo,
    /// Its lead when the property sets none of its own (the property's
    /// `checkInMessage` and `checkOutMessage` set the two built-in kinds').
    pub default_lead: Lead,
    /// Whether one already sent goes again when the stay's door code changes
    /// (it shows the code); every one sent goes again when the dates change.
    pub again_for_new_code: bool,
}

/// The moment of a stay a timed message is counted back from, on the
/// property's wall clock (`outbox::message::timing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimedTo {
    /// The opening of the stay's access window (docs/API.md section 15). It
    /// goes no earlier than the stay page may show the door code
    /// (`accessRevealHours`), and is too late once the window has closed.
    Arrival,
    /// `checkOutTime` on the departure day. It goes after the arrival
    /// messages, and is too late once the guest has left: the time passed or
    /// an early check-out, which cancels it.
    Departure,
}

impl fmt::Display for MessageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for MessageKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MessageKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = MessageKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("{s:?} is not a message kind ({})", names.join(", "))
        })
    }
}
