//! Data generators for the benches.
