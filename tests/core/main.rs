//! Black-box tests of `rental-core`, through its public API only.
//!
//! - `suite`: every rule of docs/API.md sections 4 to 7, run against both stores.
//! - `backups`: backups checked and restored as a stream.
//! - `bad_input`: refused requests write nothing.
//! - `channel_fixtures`: every iCal fixture through the whole import.
//! - `timezones`: each property's "today" is its own.
//! - `concurrency`: racing writers, exactly one winner.
//! - `durability`: what a redb store keeps across closing and reopening.
//! - `properties`: property-based checks of the invariants; `money`: of the payment math.
//! - `price_rules`: section 25's stay and price rules, each at its boundaries and against a reference.
//! - `free_text`: random names through the published calendar and the terminal form.
//! - `shared_store`: several engines on one PostgreSQL database.
//! - `conformance`: the public store conformance suite on memory, redb and PostgreSQL.

mod backups;
mod bad_input;
mod channel_fixtures;
mod concurrency;
mod conformance;
mod durability;
mod free_text;
mod money;
mod price_rules;
mod properties;
mod shared_store;
mod suite;
mod timezones;
