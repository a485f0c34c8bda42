//! The home automation and calendar endpoints of the route table: the summary,
//! channel feed pulls and the exported calendar, each row with its handler and OpenAPI operation.

use http::Method;
use rental_core::Store;
use rental_core::keys::Scope;

use super::{Endpoint, Table};
use crate::handlers;
use crate::openapi::{Operation, Success};

impl<S: Store + 'static> Table<S> {
    /// The occupancy summary, channel feed pulls and the exported calendar.
    pub(super) const CALENDARS: &'static [Endpoint<S>] = &[
        Endpoint {
            method: Method::GET,
            path: "/api/v1/ha/summary",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::summary(c.rental()).await }),
            operation: Operation {
                id: "getSummary",
                tag: "Home automation",
                summary: "Occupancy summary",
                description: "For home automation: per active property, whether a confirmed guest is in \
                    tonight, who arrives and leaves today (pending requests included), the current and next \
                    booking, check-in and check-out times, door code and Wi-Fi name. Each property is judged on \
                    today in its own time zone; the top-level `date` is today in the service's default zone. \
                    Adds each property's `stayState` (`vacant`, `awaiting_check_in`, `checked_in`, `checked_out`) \
                    and `nextTransitionAt`, the door code valid now or next (`access`, with its window), the \
                    `turnover` after the stay that leaves today or is in progress, and each channel feed's \
                    freshness (`feeds`). \
                    Contains the door code: give this scope only to trusted systems. Needs the `read` scope.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "The summary.", "Summary"),
                errors: &[],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/sync/ical",
            scope: Some(Scope::Write),
            handler: |c| Box::pin(async move { handlers::sync(c.state().feed_puller(), c.query()).await }),
            operation: Operation {
                id: "syncIcal",
                tag: "Calendars",
                summary: "Pull channel calendars now",
                description: "Pulls every configured channel iCal feed (or only those of `property`), waits for \
                    them, and answers with the counts of the pull; `calendar.synced` is emitted with the same \
                    object. No body is needed. A feed that fails (network, non-2xx, not a calendar, over 5 MiB, \
                    over 20 s) changes nothing it owns and is reported with `ok: false` and its `error`; the \
                    request still answers 200. An unknown or inactive `property` is a 404. Needs the `write` scope.",
                parameters: &["SyncProperty", "RequestId"],
                body: None,
                success: Success::Json(200, "The result of the pull.", "SyncResult"),
                errors: &["InvalidParameter", "NotFound"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/sync/status",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::sync_status(c.rental()).await }),
            operation: Operation {
                id: "getSyncStatus",
                tag: "Calendars",
                summary: "Channel feed freshness",
                description: "Every configured channel iCal feed of every active property: whether its last pull \
                    succeeded, when it was last tried and last succeeded, the last error and event count, and \
                    `stale` when no pull has succeeded in the last 3 × `syncInterval` (or ever). Needs the \
                    `read` scope.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "Each feed's freshness.", "SyncStatus"),
                errors: &[],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/calendar/{slug}.ics",
            scope: None,
            handler: |c| {
                Box::pin(async move { handlers::calendar(c.rental(), c.param("slug"), c.query(), c.headers()).await })
            },
            operation: Operation {
                id: "getCalendar",
                tag: "Calendars",
                summary: "The property's calendar, for the channels",
                description: "An iCalendar (RFC 5545) file for Airbnb, Vrbo, Booking.com or any calendar app: one \
                    all-day event per pending or confirmed stay (`SUMMARY:Reserved`) and per block \
                    (`SUMMARY:Not available`), from 30 days ago on. `DTSTART` is the first night, `DTEND` the day \
                    after the last; each `UID` stays the same when the dates change. No guest data. `exclude=<feed>` \
                    leaves out what was imported from that feed. Send the `ETag` back as `If-None-Match` to get a 304 \
                    while nothing changed. Public: no key needed.",
                parameters: &["Slug", "Exclude", "IfNoneMatch", "RequestId"],
                body: None,
                success: Success::Calendar,
                errors: &["NotFound", "Unavailable"],
            },
        },
    ];
}
