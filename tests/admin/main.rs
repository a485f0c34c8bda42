//! Tests of the admin dashboard (issue 6), each against its own in-process server.
//!
//! - `security`: over plain HTTP: every route needs a session, CSRF tokens,
//!   the login throttle, cookie attributes, escaping, logout and expiry.
//! - `proxy`: the login throttle behind a trusted reverse proxy (`X-Forwarded-For`).
//! - `login_burst`: logins sent at once, from one address and from many: counted
//!   before checking, checked a few at a time, in bounded memory.
//! - `actions`: the dashboard's forms change what the API serves: booking
//!   confirm/cancel, iCal feeds, test events and resends through the real dispatcher.
//! - `browser`: the whole flow in Debian's chromium through chromedriver,
//!   with screenshots at desktop and phone widths under `target/screenshots/`.
//! - `book_browser`: the booking page in chromium (mouse, keyboard, no script,
//!   embedded on a second origin) with axe-core, and its settings in the dashboard.
//! - `book_rules`: the booking page's calendar under a weekday rule and a gap, in words, in chromium.
//! - `book_traps`: what a guest trips over on the booking page (issue 44), in chromium.
//! - `calendar_scale`: the calendar of 200 properties, its time and size.
//! - `host_actions`: the host forms over HTTP: CSRF, escaping, use cases.
//! - `host_browser`: host operations in chromium: the calendar, blocks, the
//!   bookings search and changing a booking's dates from its page.
//! - `messages`: a booking's guest messages and their resend, the property
//!   editor's wording, preview and test message, over HTTP.
//! - `payments`: the property editor's payment settings and worked example, over HTTP.
//! - `rules`: the property editor's stay and price rules and its preview quote, over HTTP.

mod actions;
mod book_browser;
mod book_rules;
mod book_traps;
mod browser;
mod calendar_scale;
mod client;
mod host_actions;
mod host_browser;
mod login_burst;
mod messages;
mod payments;
mod proxy;
mod rules;
mod security;
mod stay_browser;
