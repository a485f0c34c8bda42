//! A booking's status, the word the lifecycle, the errors and the feeds all
//! speak; it sits with the basics so that `Error` can name it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A booking's status.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A request awaiting the host's approval; holds its nights.
    Pending,
    /// Approved; books its nights.
    Confirmed,
    /// Cancelled; its nights are free.
    Cancelled,
}

impl Status {
    /// The name in JSON (`pending`, `confirmed`, `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Confirmed => "confirmed",
            Status::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "pending" => Ok(Status::Pending),
            "confirmed" => Ok(Status::Confirmed),
            "cancelled" => Ok(Status::Cancelled),
            other => Err(format!("{other:?} is not a status (pending, confirmed, cancelled)")),
        }
    }
}
