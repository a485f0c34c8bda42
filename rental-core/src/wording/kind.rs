//! The kinds of guest message (docs/API.md section 21): what each is about,
//! whom it goes to, and its name in JSON, keys and templates.

use std::fmt;

use serde::{Deserialize, Serialize};

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
        matches!(self, MessageKind::CheckInInstructions | MessageKind::CheckOutReminder)
    }
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
