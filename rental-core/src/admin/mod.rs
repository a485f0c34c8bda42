//! Who may do what: API keys with their scopes, and the admin dashboard's
//! sessions and login throttle.

pub mod admin_session;
pub mod keys;
