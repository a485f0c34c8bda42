//! How a stay's problems become an error for the use cases that must refuse
//! it (creating a booking, changing one): stay rules a 422, taken nights a 409.

use crate::bookings::pricing::Problem;
use crate::error::{Error, FieldError, Result};

/// Stay-rule problems are a 422 `validation_failed` naming each; a promo
/// code that cannot be used, when nothing else is wrong, a 422 `promo_code`;
/// taken nights, when nothing else is wrong, a 409 (docs/API.md section 25).
pub(super) fn refuse_problems(problems: &[Problem]) -> Result<()> {
    let rules: Vec<&Problem> =
        problems.iter().filter(|p| !matches!(p, Problem::NightsTaken { .. } | Problem::PromoCode { .. })).collect();
    if !rules.is_empty() {
        let errors = problems
            .iter()
            .filter(|p| !matches!(p, Problem::NightsTaken { .. }))
            .map(|p| FieldError::new(p.field(), p.code(), p.message()))
            .collect();
        return Err(Error::Validation(errors));
    }
    if let Some(reason) =
        problems.iter().find_map(|p| if let Problem::PromoCode { reason } = p { Some(*reason) } else { None })
    {
        return Err(Error::PromoCode { reason });
    }
    match problems.iter().find_map(|p| if let Problem::NightsTaken { dates } = p { Some(dates) } else { None }) {
        Some(dates) => Err(Error::DatesUnavailable { dates: dates.clone() }),
        None => Ok(()),
    }
}
