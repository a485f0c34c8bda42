//! placeholder until the suite lands
