//! Why a well-formed stay cannot be booked: each quote problem with its
//! stable code, the data a page needs to say it, and a sentence for people.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use crate::basics::promo_refusal::PromoRefusal;
use crate::properties::weekdays::Weekdays;

/// A reason a well-formed stay cannot be booked (docs/API.md sections 5 and 25).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "QuoteProblem"))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Problem {
    /// Some nights are held, booked or blocked, or kept free to prepare for
    /// a neighbouring stay (code `dates_unavailable`; a booking of them
    /// fails with [`crate::Error::DatesUnavailable`]).
    #[serde(rename = "dates_unavailable")]
    NightsTaken {
        /// Those nights.
        dates: Vec<NaiveDate>,
    },
    /// The stay starts on a weekday the property does not take arrivals on.
    CheckInDay {
        /// The weekdays a stay may start on.
        allowed: Weekdays,
    },
    /// The stay ends on a weekday the property does not take departures on.
    CheckOutDay {
        /// The weekdays a stay may end on.
        allowed: Weekdays,
    },
    /// Shorter than the first night's minimum (after gap relief).
    MinNights {
        /// The minimum.
        limit: u32,
    },
    /// Longer than the first night's maximum.
    MaxNights {
        /// The maximum.
        limit: u32,
    },
    /// More guests than the property allows.
    MaxGuests {
        /// The maximum.
        limit: u32,
    },
    /// More pets than the property allows.
    MaxPets {
        /// The maximum (0: no pets).
        limit: u32,
    },
    /// The stay starts before the property's local today.
    PastDates {
        /// The property's local today.
        today: NaiveDate,
    },
    /// The check-in instant is sooner than the property's advance notice.
    AdvanceNotice {
        /// The notice asked for, in hours.
        hours: u32,
        /// The first day a stay may start on.
        earliest: NaiveDate,
    },
    /// The stay starts after the last night that can be booked: the
    /// property's booking window, or [`crate::stay::HORIZON_MONTHS`].
    BeyondHorizon {
        /// The last night a stay may start on.
        last: NaiveDate,
    },
    /// The promo code given cannot be used for this stay (a booking with it
    /// fails with 422 `promo_code`).
    PromoCode {
        /// Why not.
        reason: PromoRefusal,
    },
}

impl Problem {
    /// The problem's code (`min_nights`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Problem::NightsTaken { .. } => "dates_unavailable",
            Problem::CheckInDay { .. } => "check_in_day",
            Problem::CheckOutDay { .. } => "check_out_day",
            Problem::MinNights { .. } => "min_nights",
            Problem::MaxNights { .. } => "max_nights",
            Problem::MaxGuests { .. } => "max_guests",
            Problem::MaxPets { .. } => "max_pets",
            Problem::PastDates { .. } => "past_dates",
            Problem::AdvanceNotice { .. } => "advance_notice",
            Problem::BeyondHorizon { .. } => "beyond_horizon",
            Problem::PromoCode { .. } => "promo_code",
        }
    }

    /// The request field a refusal of this problem names.
    pub fn field(&self) -> &'static str {
        match self {
            Problem::NightsTaken { .. }
            | Problem::CheckInDay { .. }
            | Problem::PastDates { .. }
            | Problem::AdvanceNotice { .. }
            | Problem::BeyondHorizon { .. } => "checkIn",
            Problem::CheckOutDay { .. } | Problem::MinNights { .. } | Problem::MaxNights { .. } => "checkOut",
            Problem::MaxGuests { .. } => "guests",
            Problem::MaxPets { .. } => "pets",
            Problem::PromoCode { .. } => "promoCode",
        }
    }

    /// A sentence for people.
    pub fn message(&self) -> String {
        let days = |allowed: &Weekdays| allowed.names().iter().map(|n| day_word(n)).collect::<Vec<_>>().join(", ");
        match self {
            Problem::NightsTaken { dates } => {
                format!("{} night(s) already taken", dates.len())
            }
            Problem::CheckInDay { allowed } => format!("stays start only on {}", days(allowed)),
            Problem::CheckOutDay { allowed } => format!("stays end only on {}", days(allowed)),
            Problem::MinNights { limit } => {
                format!("stays starting then are at least {limit} nights")
            }
            Problem::MaxNights { limit } => {
                format!("stays starting then are at most {limit} nights")
            }
            Problem::MaxGuests { limit } => format!("at most {limit} guests"),
            Problem::MaxPets { limit: 0 } => "no pets".to_owned(),
            Problem::MaxPets { limit } => format!("at most {limit} pets"),
            Problem::PastDates { today } => format!("check-in is before today ({today})"),
            Problem::AdvanceNotice { hours, earliest } => {
                format!("check-in needs {hours} hours' notice: the earliest is {earliest}")
            }
            Problem::BeyondHorizon { last } => format!("stays can be booked up to a check-in on {last}"),
            Problem::PromoCode { reason } => format!("the promo code {}", reason.words()),
        }
    }
}

/// `Saturday` for `sat`.
fn day_word(name: &str) -> &'static str {
    match name {
        "mon" => "Monday",
        "tue" => "Tuesday",
        "wed" => "Wednesday",
        "thu" => "Thursday",
        "fri" => "Friday",
        "sat" => "Saturday",
        _ => "Sunday",
    }
}

/// The problem as a sentence for people ([`Problem::message`]).
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_carries_the_data_a_page_needs() {
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        let sat: Weekdays = serde_json::from_str(r#"["sat"]"#).unwrap();
        let cases = [
            (
                Problem::CheckInDay { allowed: sat },
                r#"{"code":"check_in_day","allowed":["sat"]}"#,
                "stays start only on Saturday",
            ),
            (
                Problem::AdvanceNotice { hours: 48, earliest: d("2026-11-24") },
                r#"{"code":"advance_notice","hours":48,"earliest":"2026-11-24"}"#,
                "check-in needs 48 hours' notice: the earliest is 2026-11-24",
            ),
            (Problem::MaxPets { limit: 0 }, r#"{"code":"max_pets","limit":0}"#, "no pets"),
            (
                Problem::PromoCode { reason: PromoRefusal::UsedUp },
                r#"{"code":"promo_code","reason":"used_up"}"#,
                "the promo code has been used up",
            ),
        ];
        for (problem, json, words) in cases {
            assert_eq!(serde_json::to_string(&problem).unwrap(), json);
            assert_eq!(serde_json::from_str::<Problem>(json).unwrap(), problem);
            assert_eq!(problem.to_string(), words);
            assert!(json.contains(problem.code()));
        }
    }
}
