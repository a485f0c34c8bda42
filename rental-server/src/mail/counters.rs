//! Outcomes of guest messages per kind, counted since the server started: the
//! numbers behind `rental_messages_total{kind,outcome}` (docs/API.md section 21).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use rental_core::message::MessageKind;

/// What happened to one message at one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageOutcome {
    /// The mail server accepted it.
    Sent,
    /// Refused for now (SMTP 4xx, connection failure): tried again later.
    Retried,
    /// Refused for good (SMTP 5xx), or retries exhausted.
    Failed,
    /// Not sent: no mail server, disabled, or too late after downtime.
    Skipped,
    /// Not sent: its booking was cancelled or changed first.
    Cancelled,
}

impl MessageOutcome {
    /// Every outcome, in label order.
    pub const ALL: [MessageOutcome; 5] = [
        MessageOutcome::Sent,
        MessageOutcome::Retried,
        MessageOutcome::Failed,
        MessageOutcome::Skipped,
        MessageOutcome::Cancelled,
    ];

    /// The `outcome` label.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageOutcome::Sent => "sent",
            MessageOutcome::Retried => "retry",
            MessageOutcome::Failed => "failed",
            MessageOutcome::Skipped => "skipped",
            MessageOutcome::Cancelled => "cancelled",
        }
    }
}

const KINDS: usize = MessageKind::ALL.len();
const OUTCOMES: usize = MessageOutcome::ALL.len();

/// Lock-free counters of message outcomes, one per kind and outcome.
///
/// ```
/// use rental_core::message::MessageKind;
/// use rental_server::mail::{MessageCounters, MessageOutcome};
/// let counters = MessageCounters::default();
/// counters.add(MessageKind::Confirmed, MessageOutcome::Sent);
/// assert_eq!(counters.get(MessageKind::Confirmed, MessageOutcome::Sent), 1);
/// assert_eq!(counters.snapshot().len(), MessageKind::ALL.len() * 5);
/// ```
#[derive(Debug, Default)]
pub struct MessageCounters {
    counts: [[AtomicU64; OUTCOMES]; KINDS],
    /// Why the mail server last refused a connection or a send, until one goes through.
    trouble: Mutex<Option<String>>,
}

impl MessageCounters {
    /// Why sends fail now (the check at start, or the last attempt refused
    /// for a reason worth retrying); `None` once one went through. The
    /// dashboard shows it: a host learns of a broken mail server at once,
    /// not from each message's retries.
    pub fn trouble(&self) -> Option<String> {
        self.trouble.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Notes how the mail server answered: `Some(why)` it refused, `None` it took a message.
    pub fn set_trouble(&self, why: Option<String>) {
        *self.trouble.lock().unwrap_or_else(PoisonError::into_inner) = why;
    }

    /// Counts one `outcome` of a `kind` message, here and in the process's
    /// metrics (`rental_messages_total{kind,outcome}` on `/metrics`).
    pub fn add(&self, kind: MessageKind, outcome: MessageOutcome) {
        self.cell(kind, outcome).fetch_add(1, Ordering::Relaxed);
        rental_core::metrics::message(kind.as_str(), outcome.as_str());
    }

    /// How many `outcome`s of `kind` so far.
    pub fn get(&self, kind: MessageKind, outcome: MessageOutcome) -> u64 {
        self.cell(kind, outcome).load(Ordering::Relaxed)
    }

    /// Every counter: `(kind, outcome, count)`, zeros included, kinds in order.
    pub fn snapshot(&self) -> Vec<(MessageKind, MessageOutcome, u64)> {
        let mut out = Vec::with_capacity(KINDS * OUTCOMES);
        for kind in MessageKind::ALL {
            for outcome in MessageOutcome::ALL {
                out.push((kind, outcome, self.get(kind, outcome)));
            }
        }
        out
    }

    fn cell(&self, kind: MessageKind, outcome: MessageOutcome) -> &AtomicU64 {
        let k = MessageKind::ALL.iter().position(|x| *x == kind).unwrap_or(0);
        let o = MessageOutcome::ALL.iter().position(|x| *x == outcome).unwrap_or(0);
        &self.counts[k][o]
    }
}
