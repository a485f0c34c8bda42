//! The outbox and webhooks: the events every change records, their
//! deliveries to webhooks, and how a delivery is signed.

pub mod delivery;
pub mod event;
pub mod webhook;
