//! The property endpoints of the route table: properties, their per-night
//! availability and their blocks, each row with its handler and OpenAPI operation.

use http::Method;
use rental_core::Store;
use rental_core::keys::Scope;

use super::{Endpoint, Table};
use crate::openapi::{Operation, Success};
use crate::{blocks, handlers};

impl<S: Store + 'static> Table<S> {
    /// Properties, their availability and their blocks.
    pub(super) const PROPERTIES: &'static [Endpoint<S>] = &[
        Endpoint {
            method: Method::GET,
            path: "/api/v1/properties",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::list_properties(c.rental()).await }),
            operation: Operation {
                id: "listProperties",
                tag: "Properties",
                summary: "List active properties",
                description: "Every active property, ordered by slug, with its rates and seasons. \
                    Inactive properties are left out. Needs the `read` scope.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "The active properties.", "PropertyList"),
                errors: &[],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/properties/{slug}",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::get_property(c.rental(), c.param("slug")).await }),
            operation: Operation {
                id: "getProperty",
                tag: "Properties",
                summary: "Get a property",
                description: "One active property with its rates and seasonal rates. An unknown or inactive \
                    property is 404. Door code, Wi-Fi name and feed URLs are never shown here. Needs the `read` scope.",
                parameters: &["Slug", "RequestId"],
                body: None,
                success: Success::Json(200, "The property.", "Property"),
                errors: &["NotFound"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/properties/{slug}/availability",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { handlers::availability(c.rental(), c.param("slug"), c.query()).await }),
            operation: Operation {
                id: "getAvailability",
                tag: "Properties",
                summary: "Per-night availability and prices",
                description: "One record per night from `from` up to, not including, `to`: whether it is free, \
                    why not (`booked`, `held`, `blocked`, `past`), its price before discounts, fees and taxes, and \
                    the minimum stay starting on it. A malformed or empty date is 400 `invalid_parameter`; `to` on or \
                    before `from`, or a range over 366 nights, is 422 `validation_failed`. Needs the `read` scope.",
                parameters: &["Slug", "AvailabilityFrom", "AvailabilityTo", "RequestId"],
                body: None,
                success: Success::Json(200, "The nights of the range, in order.", "Availability"),
                errors: &["InvalidParameter", "NotFound", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/properties/{slug}/blocks",
            scope: Some(Scope::Read),
            handler: |c| Box::pin(async move { blocks::list(c.rental(), c.param("slug"), c.query()).await }),
            operation: Operation {
                id: "listBlocks",
                tag: "Blocks",
                summary: "List a property's blocks",
                description: "The blocks holding a night in `[from, to)`: manual ones (`source: manual`) and those \
                    imported from channel feeds (`source` is the feed's name). `from` defaults to the property's local \
                    today and `to` to `from` + 30 days; a malformed date is 400 `invalid_parameter`, `to` on or before \
                    `from` or a range over 366 nights 422 `validation_failed`. Needs the `read` scope.",
                parameters: &["Slug", "AvailabilityFrom", "AvailabilityTo", "RequestId"],
                body: None,
                success: Success::Json(200, "The blocks, by start date.", "BlockList"),
                errors: &["InvalidParameter", "NotFound", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::POST,
            path: "/api/v1/properties/{slug}/blocks",
            scope: Some(Scope::Write),
            handler: |mut c| {
                Box::pin(async move {
                    let body = c.body().await?;
                    blocks::create(c.rental(), c.param("slug"), &body).await
                })
            },
            operation: Operation {
                id: "createBlock",
                tag: "Blocks",
                summary: "Block nights",
                description: "Closes the nights `startDate` up to, not including, `endDate` (1 to 366 nights, not \
                    before the property's local today) for an owner stay, maintenance or a closure, with an optional \
                    `note` of at most 500 characters. Blocks may overlap each other; nights held or booked by a stay \
                    are 409 `dates_unavailable`. Availability then reports them `blocked`, quotes and bookings treat \
                    them as taken and the exported calendar shows them `Not available`. Needs the `write` scope.",
                parameters: &["Slug", "RequestId"],
                body: Some("NewBlock"),
                success: Success::BlockCreated,
                errors: &["NotFound", "DatesUnavailable", "ValidationFailed"],
            },
        },
        Endpoint {
            method: Method::DELETE,
            path: "/api/v1/properties/{slug}/blocks/{id}",
            scope: Some(Scope::Write),
            handler: |c| Box::pin(async move { blocks::delete(c.rental(), c.param("slug"), c.param("id")).await }),
            operation: Operation {
                id: "deleteBlock",
                tag: "Blocks",
                summary: "Remove a block",
                description: "Reopens the nights of a manual block. An unknown id, or a block of another property, is \
                    404; a block imported from a channel feed is 409 `invalid_transition` (the feed owns it). Needs \
                    the `write` scope.",
                parameters: &["Slug", "BlockId", "RequestId"],
                body: None,
                success: Success::NoContent("Removed: the nights are free again."),
                errors: &["NotFound", "InvalidTransition"],
            },
        },
    ];
}
