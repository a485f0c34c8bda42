//! How a stay's problems become an error for the use cases that must refuse
//! it (creating a booking, changing one): stay rules a 422, taken nights a 409.

use crate::bookings::pricing::Problem;
use crate::error::{Error, FieldError, Result};

/// Stay-rule problems are a 422; taken nights (only when nothing else is wrong) a 409.
pub(super) fn refuse_problems(problems: &[Problem]) -> Result<()> {
    let errors: Vec<FieldError> = problems
        .iter()
        .filter_map(|p| {
            let field = match p {
                Problem::NightsTaken { .. } => return None,
                Problem::MinNights { .. } | Problem::MaxNights { .. } => "checkOut",
                Problem::MaxGuests { .. } => "guests",
                Problem::PastDates { .. } | Problem::BeyondHorizon { .. } => "checkIn",
            };
            Some(FieldError::new(field, p.code(), p.message()))
        })
        .collect();
    if !errors.is_empty() {
        return Err(Error::Validation(errors));
    }
    match problems.iter().find_map(|p| if let Problem::NightsTaken { dates } = p { Some(dates) } else { None }) {
        Some(dates) => Err(Error::DatesUnavailable { dates: dates.clone() }),
        None => Ok(()),
    }
}
