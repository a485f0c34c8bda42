//! The outbox, webhooks and guest messages: the events every change records,
//! their deliveries to webhooks and how a delivery is signed, and the e-mails to guests.

pub mod delivery;
pub mod message;
pub mod webhook;
