//! Which messages a booking's change records, decided from the booking as it
//! was and as it will be stored: a pure function, run by the one write path
//! for every booking written, so each cause records its messages in the same
//! transaction as itself.
//!
//! | change | records |
//! |---|---|
//! | created `pending` (a page request: once its guest's address is verified) | `request_received`; `host_request` for sources `page`, `api`, `agent`, and `host_request_expiring` two hours before the request lapses (when requests lapse more than four hours after they are made) |
//! | confirmed or cancelled while pending | a scheduled `host_request_expiring` cancelled |
//! | confirmed | `confirmed`, and the stay's timed messages (one of each kind with a [`MessageKind::timing`]: the check-in instructions, the check-out reminder), scheduled |
//! | dates or guests changed | `changed`; scheduled timed messages re-timed; one already sent goes again when the dates changed, or the door code for a kind that shows it |
//! | cancelled | `cancelled`; scheduled timed messages cancelled |
//! | checked out early | scheduled departure messages (the reminder) cancelled |
//! | a confirmed stay's first guest e-mail (the stay page's check-in form, for a channel's booking) | the stay's timed messages, scheduled |

use chrono::{DateTime, TimeDelta, Utc};

use crate::basics::ids::Source;
use crate::bookings::booking::{Booking, Status};
use crate::bookings::verification::is_verified;
use crate::properties::property::Property;

use super::template::{Facts, context_with, subject_with};
use super::timing::schedule;
use super::{Message, MessageKind, MessageStatus, TimedTo, cancel, reasons, skip};

/// What [`plan`] needs besides the two bookings.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    /// The booking's property, as stored now.
    pub property: &'a Property,
    /// The booking's messages so far, in key order.
    pub existing: &'a [Message],
    /// Where `host_request` and `host_request_expiring` go; empty: nowhere.
    pub host_email: &'a str,
    /// How long a pending request waits before it lapses (`checkoutTtl`); `None`: it never does.
    pub request_ttl: Option<TimeDelta>,
    /// The instant of the write.
    pub now: DateTime<Utc>,
}

/// The messages to write for `after` replacing `before` (`None`: a new
/// booking): new records and changed existing ones. `new_id` draws an id.
/// A booking without a guest e-mail (a channel import) gets none.
pub fn plan(
    before: Option<&Booking>,
    after: &Booking,
    input: PlanInput<'_>,
    new_id: &mut dyn FnMut() -> String,
) -> Vec<Message> {
    if after.guest_email.is_empty() {
        return Vec::new();
    }
    let mut out = Plan { after, input, new_id, written: Vec::new() };
    let was = before.map(|b| b.status);
    match (was, after.status) {
        // An unverified guest address is sent nothing it typed, nor the host its request, until it is verified.
        (None, Status::Pending) if !is_verified(after) => {}
        (None, Status::Pending) => out.requested(),
        (Some(Status::Pending), Status::Pending) if before.is_some_and(|b| !is_verified(b)) && is_verified(after) => {
            out.requested();
        }
        (None | Some(Status::Pending), Status::Confirmed) => {
            out.finish_expiring();
            out.add(MessageKind::Confirmed, input.now);
            out.timed();
        }
        (Some(Status::Pending | Status::Confirmed), Status::Cancelled) => {
            out.finish_expiring();
            out.add(MessageKind::Cancelled, input.now);
            out.finish_timed(|m| cancel(m, reasons::BOOKING_CANCELLED), |_| true);
        }
        (Some(Status::Confirmed), Status::Confirmed) if before.is_some_and(|b| b.guest_email.is_empty()) => {
            // The guest's address arrived (a channel's booking): the stay's messages start now.
            out.timed();
        }
        (Some(Status::Confirmed), Status::Confirmed) => {
            if let Some(before) = before {
                out.confirmed_changed(before);
            }
        }
        (Some(Status::Pending), Status::Pending)
            if before.is_some_and(|b| b.stay != after.stay || b.guests != after.guests) =>
        {
            out.add(MessageKind::Changed, input.now);
        }
        _ => {}
    }
    out.written
}

/// How long before a request lapses the host is told (`host_request_expiring`).
pub const EXPIRING_LEAD: TimeDelta = TimeDelta::hours(2);

/// `page`, `api` and `agent`: the sources a host has not seen yet.
fn from_host_facing_source(source: &Source) -> bool {
    matches!(source.as_str(), "page" | "api" | "agent")
}

struct Plan<'a, 'f> {
    after: &'a Booking,
    input: PlanInput<'a>,
    new_id: &'f mut dyn FnMut() -> String,
    written: Vec<Message>,
}

impl Plan<'_, '_> {
    /// A request made (or its guest's address verified): the guest's receipt,
    /// the host's request and its reminder before it lapses.
    fn requested(&mut self) {
        let (after, input) = (self.after, self.input);
        self.add(MessageKind::RequestReceived, input.now);
        if from_host_facing_source(&after.source) && !input.host_email.is_empty() {
            self.add(MessageKind::HostRequest, input.now);
            if let Some(ttl) = input.request_ttl.filter(|ttl| *ttl > EXPIRING_LEAD * 2) {
                self.add(MessageKind::HostRequestExpiring, after.created_at + ttl - EXPIRING_LEAD);
            }
        }
    }

    /// Records the stay's timed messages, one of each timed kind, each at its time.
    fn timed(&mut self) {
        let (after, input) = (self.after, self.input);
        for (kind, due) in schedule(input.property, after.check_in(), after.check_out(), input.now) {
            self.add(kind, due);
        }
    }

    /// Records a new message of `kind` due at `due` (skipped when the property turned the kind off).
    fn add(&mut self, kind: MessageKind, due: DateTime<Utc>) {
        let input = self.input;
        let earlier = self.written.iter().filter(|m| is_new(m, input)).count();
        let mut message = fresh(kind, self.after, input, due, (self.new_id)());
        message.seq = message.seq.saturating_add(u32::try_from(earlier).unwrap_or(u32::MAX));
        self.written.push(message);
    }

    /// The latest record of `kind` among the existing ones.
    fn latest(&self, kind: MessageKind) -> Option<&Message> {
        self.input.existing.iter().rev().find(|m| m.kind == kind)
    }

    /// Cancels a scheduled `host_request_expiring`: the request was answered.
    fn finish_expiring(&mut self) {
        for m in self.input.existing {
            if m.kind == MessageKind::HostRequestExpiring && m.status == MessageStatus::Scheduled {
                self.written.push(cancel(m, reasons::ANSWERED));
            }
        }
    }

    /// Applies `change` to each scheduled timed message that `which` picks.
    fn finish_timed(&mut self, change: impl Fn(&Message) -> Message, which: impl Fn(&Message) -> bool) {
        for m in self.input.existing {
            if m.kind.is_timed() && m.status == MessageStatus::Scheduled && which(m) {
                self.written.push(change(m));
            }
        }
    }

    /// A confirmed stay written again: changed dates or guests, a new door
    /// code, or an early check-out.
    fn confirmed_changed(&mut self, before: &Booking) {
        let (after, now) = (self.after, self.input.now);
        let dates = before.stay != after.stay;
        let code = before.visit.access.as_ref().map(|a| &a.code) != after.visit.access.as_ref().map(|a| &a.code);
        if dates || before.guests != after.guests {
            self.add(MessageKind::Changed, now);
        }
        if after.visit.checked_out_at.is_some() && before.visit.checked_out_at.is_none() {
            let leaving = |m: &Message| m.kind.timing().is_some_and(|t| t.to == TimedTo::Departure);
            self.finish_timed(|m| cancel(m, reasons::CHECKED_OUT), leaving);
        }
        if !dates && !code {
            return;
        }
        for (kind, due) in schedule(self.input.property, after.check_in(), after.check_out(), now) {
            let again = dates || kind.timing().is_some_and(|t| t.again_for_new_code);
            let Some(m) = self.latest(kind).cloned() else { continue };
            // One on the wire now carries the old details: it counts as sent.
            let went = m.status == MessageStatus::Sent || (m.status == MessageStatus::Scheduled && m.is_leased(now));
            if went {
                if again {
                    self.add(kind, due);
                }
            } else if m.status == MessageStatus::Scheduled {
                self.written.push(Message { due_at: due, ..m });
            }
        }
    }
}

/// A new message of `kind` about `booking`, due at `due`, numbered after
/// `input.existing`, its subject rendered now; `skipped` (`disabled`) when the
/// property turned the kind off.
pub fn fresh(kind: MessageKind, booking: &Booking, input: PlanInput<'_>, due: DateTime<Utc>, id: String) -> Message {
    // After the highest: retention may have removed earlier ones, and a
    // booking's keys must keep their order and never be reused.
    let seq = input.existing.iter().map(|m| m.seq).max().unwrap_or(0).saturating_add(1);
    let locale = super::template::locale_of(kind, booking, input.property);
    let custom = input.property.messages.custom(kind, locale);
    let facts = Facts { booking, property: input.property, base_url: None, stay_url: None };
    let subject = subject_with(locale, kind, custom, |wanted| context_with(kind, facts, wanted)).unwrap_or_default();
    let to = if kind.is_for_host() { input.host_email } else { booking.guest_email.as_str() };
    let message = Message {
        id,
        booking: booking.code.clone(),
        property: booking.property.clone(),
        seq,
        kind,
        to: to.to_owned(),
        subject,
        status: MessageStatus::Scheduled,
        due_at: due,
        sent_at: None,
        attempts: 0,
        error: None,
        lease: None,
        resent: false,
        created_at: input.now,
    };
    if input.property.messages.templates.get(&kind).is_some_and(|c| !c.enabled) {
        skip(&message, reasons::DISABLED)
    } else {
        message
    }
}

/// True when `m` is a new record (not one of the existing ones re-written).
fn is_new(m: &Message, input: PlanInput<'_>) -> bool {
    !input.existing.iter().any(|e| e.id == m.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::stay::Stay;
    use crate::demo;
    use crate::stays::access::Access;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    /// Ids unique across runs of a test (each run starts its own counter).
    fn ids() -> impl FnMut() -> String {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        || format!("msg_{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }

    fn run(before: Option<&Booking>, after: &Booking, existing: &[Message], now: &str) -> Vec<Message> {
        let p = demo::sea_view();
        let input = PlanInput {
            property: &p,
            existing,
            host_email: "host@example.com",
            request_ttl: Some(TimeDelta::hours(24)),
            now: at(now),
        };
        plan(before, after, input, &mut ids())
    }

    fn kinds(ms: &[Message]) -> Vec<(MessageKind, MessageStatus)> {
        ms.iter().map(|m| (m.kind, m.status)).collect()
    }

    fn confirmed() -> Booking {
        Booking { status: Status::Confirmed, ..demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23") }
    }

    #[test]
    fn a_request_tells_the_guest_and_the_host_and_a_channel_import_tells_nobody() {
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let ms = run(None, &pending, &[], "2026-11-22T08:00:00Z");
        assert_eq!(
            kinds(&ms),
            [
                (MessageKind::RequestReceived, MessageStatus::Scheduled),
                (MessageKind::HostRequest, MessageStatus::Scheduled),
                (MessageKind::HostRequestExpiring, MessageStatus::Scheduled)
            ]
        );
        assert_eq!((ms[0].to.as_str(), ms[1].to.as_str()), ("ada@example.com", "host@example.com"));
        assert_eq!((ms[0].seq, ms[1].seq), (1, 2));
        assert_eq!((ms[2].to.as_str(), ms[2].due_at), ("host@example.com", pending.created_at + TimeDelta::hours(22)));
        let imported = Booking { guest_email: String::new(), ..confirmed() };
        assert!(run(None, &imported, &[], "2026-11-22T08:00:00Z").is_empty());
        let admin = Booking { source: Source::parse("admin").unwrap(), ..pending };
        assert_eq!(
            kinds(&run(None, &admin, &[], "2026-11-22T08:00:00Z")),
            [(MessageKind::RequestReceived, MessageStatus::Scheduled)]
        );
    }

    #[test]
    fn a_channel_stay_whose_guest_gives_an_address_gets_its_stay_messages() {
        let imported = Booking { guest_email: String::new(), ..confirmed() };
        let given = confirmed();
        let ms = run(Some(&imported), &given, &[], "2026-11-22T08:00:00Z");
        assert_eq!(
            kinds(&ms),
            [
                (MessageKind::CheckInInstructions, MessageStatus::Scheduled),
                (MessageKind::CheckOutReminder, MessageStatus::Scheduled)
            ]
        );
        assert_eq!(ms[0].to, "ada@example.com");
        assert!(run(Some(&given), &given, &ms, "2026-11-22T09:00:00Z").is_empty(), "only once");
    }

    #[test]
    fn an_answered_request_cancels_the_hosts_reminder_and_a_short_ttl_schedules_none() {
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let ms = run(None, &pending, &[], "2026-11-22T08:00:00Z");
        for answer in [confirmed(), Booking { status: Status::Cancelled, ..pending.clone() }] {
            let after = run(Some(&pending), &answer, &ms, "2026-11-22T09:00:00Z");
            let expiring: Vec<_> = after.iter().filter(|m| m.kind == MessageKind::HostRequestExpiring).collect();
            assert_eq!(expiring.len(), 1, "{:?}", answer.status);
            assert_eq!((expiring[0].status, expiring[0].id.as_str()), (MessageStatus::Cancelled, ms[2].id.as_str()));
        }
        let p = demo::sea_view();
        for ttl in [None, Some(TimeDelta::hours(4))] {
            let input = PlanInput {
                property: &p,
                existing: &[],
                host_email: "host@example.com",
                request_ttl: ttl,
                now: at("2026-11-22T08:00:00Z"),
            };
            let ms = plan(None, &pending, input, &mut || "msg_x".into());
            assert!(ms.iter().all(|m| m.kind != MessageKind::HostRequestExpiring), "{ttl:?}");
        }
    }

    #[test]
    fn confirming_schedules_instructions_and_reminder_and_cancelling_cancels_them() {
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let ms = run(Some(&pending), &confirmed(), &[], "2026-11-22T08:00:00Z");
        let want = [MessageKind::Confirmed, MessageKind::CheckInInstructions, MessageKind::CheckOutReminder];
        assert_eq!(ms.iter().map(|m| m.kind).collect::<Vec<_>>(), want);
        assert_eq!(ms[1].due_at, at("2026-12-18T15:00:00Z"));
        assert_eq!(ms[2].due_at, at("2026-12-22T19:00:00Z"));
        let cancelled = Booking { status: Status::Cancelled, ..confirmed() };
        let after = run(Some(&confirmed()), &cancelled, &ms, "2026-11-23T08:00:00Z");
        assert_eq!(
            kinds(&after),
            [
                (MessageKind::Cancelled, MessageStatus::Scheduled),
                (MessageKind::CheckInInstructions, MessageStatus::Cancelled),
                (MessageKind::CheckOutReminder, MessageStatus::Cancelled),
            ]
        );
        assert_eq!(after[0].seq, 4);
    }

    #[test]
    fn a_change_re_times_what_is_scheduled_and_sends_instructions_again_once_sent() {
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let mut ms = run(Some(&pending), &confirmed(), &[], "2026-11-22T08:00:00Z");
        let moved = Booking {
            stay: Stay::new("2026-12-21".parse().unwrap(), "2026-12-24".parse().unwrap()).unwrap(),
            ..confirmed()
        };
        let changes = run(Some(&confirmed()), &moved, &ms, "2026-11-23T08:00:00Z");
        assert_eq!(kinds(&changes)[0], (MessageKind::Changed, MessageStatus::Scheduled));
        assert_eq!((changes[1].id.as_str(), changes[1].due_at), (ms[1].id.as_str(), at("2026-12-19T15:00:00Z")));
        assert_eq!(changes[2].due_at, at("2026-12-23T19:00:00Z"));
        // Once the instructions went out, a new code sends them again; the reminder waits.
        ms[1].status = MessageStatus::Sent;
        let mut recoded = confirmed();
        recoded.visit.access = Some(Access {
            code: "918273".into(),
            valid_from: at("2026-12-20T15:00:00Z"),
            valid_until: at("2026-12-23T11:00:00Z"),
            booking: recoded.code.clone(),
        });
        let again = run(Some(&confirmed()), &recoded, &ms, "2026-12-19T08:00:00Z");
        assert_eq!(
            kinds(&again),
            [
                (MessageKind::CheckInInstructions, MessageStatus::Scheduled),
                (MessageKind::CheckOutReminder, MessageStatus::Scheduled)
            ]
        );
        assert_eq!((again[0].seq, again[0].due_at), (4, at("2026-12-19T08:00:00Z")));
        assert_eq!(again[1].id, ms[2].id, "the reminder is the scheduled one, re-timed");
    }

    #[test]
    fn instructions_on_the_wire_when_the_dates_change_go_again() {
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let mut ms = run(Some(&pending), &confirmed(), &[], "2026-11-22T08:00:00Z");
        ms[1].lease = Some(crate::lease::Lease::new("sender", at("2026-12-18T15:01:00Z")));
        let moved = Booking {
            stay: Stay::new("2026-12-19".parse().unwrap(), "2026-12-23".parse().unwrap()).unwrap(),
            ..confirmed()
        };
        let changes = run(Some(&confirmed()), &moved, &ms, "2026-12-18T15:00:10Z");
        let instructions: Vec<&Message> =
            changes.iter().filter(|m| m.kind == MessageKind::CheckInInstructions).collect();
        assert_eq!(instructions.len(), 1, "{changes:?}");
        assert_eq!(instructions[0].seq, 5, "a new record, not the one being sent with the old dates");
    }

    #[test]
    fn a_property_may_turn_a_kind_off() {
        let mut p = demo::sea_view();
        p.messages.templates.insert(
            MessageKind::CheckOutReminder,
            crate::outbox::message::template::MessageTemplate {
                subject: None,
                text: None,
                html: None,
                enabled: false,
                locales: std::collections::BTreeMap::new(),
            },
        );
        let pending = demo::booking("BK-AAAAAA", "2026-12-20", "2026-12-23");
        let input = PlanInput {
            property: &p,
            existing: &[],
            host_email: "",
            request_ttl: None,
            now: at("2026-11-22T08:00:00Z"),
        };
        let ms = plan(Some(&pending), &confirmed(), input, &mut ids());
        assert_eq!((ms[2].status, ms[2].error.as_deref()), (MessageStatus::Skipped, Some(reasons::DISABLED)));
    }
}
