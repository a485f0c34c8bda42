//! What happened at the door of one stay: when the guest checked in and out,
//! who said so, and the stay's own door code (docs/API.md section 15).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::BookingCode;

/// A stay's arrival and departure as they happened, and its door code.
/// Every field reads as absent from a booking stored before they existed.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Visit {
    /// When the stay was checked in; null until then.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub checked_in_at: Option<DateTime<Utc>>,
    /// Who checked it in: `action` (the `check_in` action) or `schedule` (at `checkInTime`).
    #[serde(default)]
    pub checked_in_by: Option<TransitionBy>,
    /// When the stay was checked out; null until then.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub checked_out_at: Option<DateTime<Utc>>,
    /// Who checked it out: `action` (an early departure) or `schedule` (at `checkOutTime`).
    #[serde(default)]
    pub checked_out_by: Option<TransitionBy>,
    /// The stay's own door code and its window (per-stay codes only); null when it has none.
    #[serde(default)]
    pub access: Option<Access>,
    /// When the guest last sent the stay page's check-in form (docs/API.md
    /// section 24); absent until then. Kept when the form's document number is deleted.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub check_in_form_at: Option<DateTime<Utc>>,
}

/// What made a stay transition.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransitionBy {
    /// A `check_in` or `check_out` action (a host, or a lock reporting the first unlock).
    Action,
    /// The property's check-in or check-out time passed.
    Schedule,
}

impl TransitionBy {
    /// `action` or `schedule`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransitionBy::Action => "action",
            TransitionBy::Schedule => "schedule",
        }
    }
}

/// A door code and when it opens the door.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Access {
    /// The digits.
    pub code: String,
    /// The first instant it opens the door.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub valid_from: DateTime<Utc>,
    /// The instant it stops opening the door.
    #[serde(with = "crate::basics::timestamp")]
    #[cfg_attr(feature = "schemars", schemars(with = "crate::basics::timestamp::Rfc3339Millis"))]
    pub valid_until: DateTime<Utc>,
    /// The booking it belongs to.
    pub booking: BookingCode,
}

impl Access {
    /// True while the code opens the door.
    pub fn valid_at(&self, now: DateTime<Utc>) -> bool {
        self.valid_from <= now && now < self.valid_until
    }

    /// True when this window and `other` share an instant.
    pub fn overlaps(&self, other: &Access) -> bool {
        self.valid_from < other.valid_until && other.valid_from < self.valid_until
    }
}
