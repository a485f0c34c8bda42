//! Properties and prices: a property's settings and rates, its local time,
//! and the quote of a stay.

pub mod local_time;
pub mod pricing;
pub mod property;
