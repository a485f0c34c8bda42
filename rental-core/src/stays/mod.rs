//! Stays and access: a stay's door code and access window, who is in the
//! house, arrivals and departures, and the occupancy summary.

pub mod access;
pub mod access_gate;
pub mod check_in;
pub mod occupancy;
pub mod presence;
pub mod stay_link;
pub mod stay_state;
pub mod stay_summary;
pub mod turnover;
