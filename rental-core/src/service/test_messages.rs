//! The admin's test messages (docs/API.md section 21): counted against the
//! property's hourly allowance and recorded before they are sent.

use chrono::Duration;

use super::Rental;
use crate::basics::ids::Slug;
use crate::error::{Error, NotFound, Result};
use crate::outbox::message::MessageKind;
use crate::outbox::message::test_message::{OverLimit, PER_HOUR, TestMessage, TestStatus, WINDOW, id_at};
use crate::store::{ReadRecords, ReadTx, Store};

/// The test messages of every property, from [`Rental::test_messages`].
#[derive(Debug)]
pub struct TestMessages<'r, S>(pub(super) &'r Rental<S>);

impl<S> Clone for TestMessages<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for TestMessages<'_, S> {}

impl<S: Store> TestMessages<'_, S> {
    /// Counts a test message of `kind` to `to` against property `slug`'s
    /// allowance and records it `sending`, in one write: of racing sends past
    /// the allowance none gets through. `Ok(Err(_))` when the allowance is spent.
    pub fn begin(self, slug: &str, kind: MessageKind, to: &str) -> Result<std::result::Result<TestMessage, OverLimit>> {
        let now = self.0.now();
        self.0.write(|tx| {
            if tx.property(slug)?.is_none() {
                return Err(Error::NotFound(NotFound::Property(slug.to_owned())));
            }
            let since = format!("{slug}/{}", id_at(now - WINDOW, 0));
            let recent: Vec<TestMessage> = tx.list(&format!("{slug}/"), &since, PER_HOUR + 1)?;
            if recent.len() >= PER_HOUR {
                return Ok(Err(OverLimit { next_at: recent[0].at + WINDOW }));
            }
            let mut n = 0;
            while tx.get::<TestMessage>(&format!("{slug}/{}", id_at(now, n)))?.is_some() {
                n += 1;
            }
            let message = TestMessage {
                property: slug.parse::<Slug>()?,
                id: id_at(now, n),
                kind,
                to: to.to_owned(),
                at: now,
                status: TestStatus::Sending,
                error: None,
            };
            tx.put(&message)?;
            Ok(Ok(message))
        })
    }

    /// Records what the mail server answered to `message`: sent, or its refusal.
    pub fn finish(self, message: &TestMessage, outcome: std::result::Result<(), String>) -> Result<TestMessage> {
        let mut done = message.clone();
        (done.status, done.error) = match outcome {
            Ok(()) => (TestStatus::Sent, None),
            Err(e) => (TestStatus::Failed, Some(e)),
        };
        self.0.write(|tx| {
            tx.put(&done)?;
            Ok(done.clone())
        })
    }

    /// Property `slug`'s test messages of the last `within`, oldest first (at most 500).
    pub fn recent(self, slug: &str, within: Duration) -> Result<Vec<TestMessage>> {
        let since = format!("{slug}/{}", id_at(self.0.now() - within, 0));
        Ok(self.0.store.read()?.list(&format!("{slug}/"), &since, 500)?)
    }
}
