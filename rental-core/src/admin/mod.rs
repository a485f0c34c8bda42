//! Who may do what: API keys with their scopes, the admin dashboard's
//! sessions and login throttle, and allowances counted in the store.

pub mod admin_session;
pub mod allowance;
pub mod keys;
