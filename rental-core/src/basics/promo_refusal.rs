//! Why a promo code cannot be used: a word of the price rules that `Error`
//! names too, so it sits with the basics.

use serde::{Deserialize, Serialize};

/// Why a promo code cannot be used.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromoRefusal {
    /// The property has no such code.
    Unknown,
    /// Its `validFrom` is after today.
    NotYetValid,
    /// Its `validTo` is before today.
    Expired,
    /// Its `maxUses` bookings have used it.
    UsedUp,
    /// The check-in is outside its `stayFrom`..`stayTo`.
    StayDates,
    /// The stay is shorter than its `minNights`.
    MinNights,
}

impl PromoRefusal {
    /// The JSON name (`used_up`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PromoRefusal::Unknown => "unknown",
            PromoRefusal::NotYetValid => "not_yet_valid",
            PromoRefusal::Expired => "expired",
            PromoRefusal::UsedUp => "used_up",
            PromoRefusal::StayDates => "stay_dates",
            PromoRefusal::MinNights => "min_nights",
        }
    }

    /// The reason in words, after "the promo code".
    pub(crate) fn words(self) -> &'static str {
        match self {
            PromoRefusal::Unknown => "is not a code of this property",
            PromoRefusal::NotYetValid => "cannot be used yet",
            PromoRefusal::Expired => "has expired",
            PromoRefusal::UsedUp => "has been used up",
            PromoRefusal::StayDates => "is not for stays starting on this date",
            PromoRefusal::MinNights => "is for longer stays",
        }
    }
}
