//! Channel calendars: reading and writing iCal, and the rules that turn a
//! channel's feed into blocks and stays, with each feed's status.

pub mod channel;
pub mod feed_status;
pub mod ical;
