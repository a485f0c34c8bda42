//! How the document describes an endpoint: the [`Operation`] each row of the
//! route table carries, and [`paths`], which turns the table into the document's `paths`.

use rental_core::keys::Scope;
use serde_json::{Map, Value, json};

use super::examples::{request_examples, response_example};
use super::shared::status_of;
use super::{header_ref, param, schema, scope};
use crate::routes;

/// What an operation answers when it succeeds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Success {
    /// A JSON body: status, description, schema (a component; empty for any object).
    Json(u16, &'static str, &'static str),
    /// 201 with the booking, `Location` and `Idempotent-Replayed`.
    Created,
    /// 201 with the block and `Location`.
    BlockCreated,
    /// 204, no body.
    NoContent(&'static str),
    /// 200 with the booking, or 204 for a key without `read`.
    Updated,
    /// 202 with the message sent again, fewer fields for a key without `read`.
    Resent,
    /// 200 `text/calendar` with an `ETag`, or 304 when `If-None-Match` names it.
    Calendar,
    /// 200 with a body that is not JSON: media type, description.
    Text(&'static str, &'static str),
}

/// How the OpenAPI document describes one endpoint of the route table
/// ([`crate::routes`]), beside the method, path and scope the row gives.
#[derive(Debug)]
pub(crate) struct Operation {
    /// `operationId`.
    pub(crate) id: &'static str,
    /// The one tag it is listed under.
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) description: &'static str,
    /// Components under `#/components/parameters/`.
    pub(crate) parameters: &'static [&'static str],
    /// The request body's schema, a component under `#/components/schemas/`.
    pub(crate) body: Option<&'static str>,
    pub(crate) success: Success,
    /// Problem responses (`#/components/responses/`) beyond those every
    /// authenticated operation and every body can give.
    pub(crate) errors: &'static [&'static str],
}

/// The problems every authenticated operation can give.
const AUTHENTICATED: &[&str] = &["Unauthorized", "Forbidden", "RateLimited", "Internal", "Unavailable"];

/// The problems of reading a JSON body.
const WITH_BODY: &[&str] = &["InvalidJson", "PayloadTooLarge", "UnsupportedMediaType"];

/// The document's `paths`: the operation of every route of the table under its path.
pub(super) fn paths() -> Value {
    let mut paths = Map::new();
    for route in routes::all() {
        let item = paths.entry(route.path()).or_insert_with(|| json!({}));
        item[route.method().as_str().to_lowercase()] = operation(route.operation(), route.scope());
    }
    Value::Object(paths)
}

fn operation(op: &Operation, access: Option<Scope>) -> Value {
    let security = match access {
        None => json!([]),
        Some(needed) => scope(&needed.to_string()),
    };
    let mut value = json!({
        "operationId": op.id,
        "tags": [op.tag],
        "summary": op.summary,
        "description": op.description,
        "security": security,
        "parameters": op.parameters.iter().map(|name| param(name)).collect::<Vec<_>>(),
        "responses": responses(op, access),
    });
    if let Some(body) = op.body {
        let mut media = Map::from_iter([("schema".to_owned(), schema(body))]);
        media.extend(request_examples(body));
        value["requestBody"] = json!({"required": true, "content": {"application/json": media}});
    }
    value
}

fn responses(op: &Operation, access: Option<Scope>) -> Value {
    let mut all = Map::new();
    match op.success {
        Success::Json(status, description, name) => {
            all.insert(status.to_string(), json_response(description, name));
        }
        Success::Created => {
            all.insert("201".to_owned(), created());
        }
        Success::BlockCreated => {
            let mut response =
                json_response("Created: the nights are closed; availability reports them `blocked`.", "Block");
            response["headers"]["Location"] = header_ref("Location");
            all.insert("201".to_owned(), response);
        }
        Success::NoContent(description) => {
            let response = json!({"description": description, "headers": {"X-Request-Id": header_ref("XRequestId")}});
            all.insert("204".to_owned(), response);
        }
        Success::Calendar => {
            all.extend(calendar());
        }
        Success::Text(media, description) => {
            let response = json!({
                "description": description,
                "headers": {"X-Request-Id": header_ref("XRequestId")},
                "content": {media: {"schema": {"type": "string"}}},
            });
            all.insert("200".to_owned(), response);
        }
        Success::Resent => {
            let mut response = json_response("Accepted: the new message, scheduled now.", "MessageView");
            response["content"]["application/json"]["schema"] =
                json!({"anyOf": [schema("MessageView"), schema("MessageAccepted")]});
            all.insert("202".to_owned(), response);
        }
        Success::Updated => {
            all.insert("200".to_owned(), json_response("The booking after the action.", "Booking"));
            let description = "Done, for a key without the `read` scope: it may change a booking but not \
                read it, so no guest details or door code are sent.";
            let response = json!({"description": description, "headers": {"X-Request-Id": header_ref("XRequestId")}});
            all.insert("204".to_owned(), response);
        }
    }
    let authenticated = if access.is_none() { &[][..] } else { AUTHENTICATED };
    let body = if op.body.is_some() { WITH_BODY } else { &[][..] };
    for name in authenticated.iter().chain(body).chain(op.errors) {
        all.insert(status_of(name).to_string(), json!({"$ref": format!("#/components/responses/{name}")}));
    }
    Value::Object(all)
}

/// A success response with `X-Request-Id` and a JSON body of schema `name`.
fn json_response(description: &str, name: &str) -> Value {
    let mut media = json!({"schema": if name.is_empty() { json!({"type": "object"}) } else { schema(name) }});
    if let Some(example) = response_example(name) {
        media["example"] = example;
    }
    json!({
        "description": description,
        "headers": {"X-Request-Id": header_ref("XRequestId")},
        "content": {"application/json": media},
    })
}

fn created() -> Value {
    let mut response = json_response(
        "Created: a `pending`, `unpaid` booking that holds its nights; `booking.created` is emitted. A replay \
            of an `Idempotency-Key` returns the first booking again, also 201.",
        "Booking",
    );
    response["headers"]["Location"] = header_ref("Location");
    response["headers"]["Idempotent-Replayed"] = header_ref("IdempotentReplayed");
    response
}

fn calendar() -> Map<String, Value> {
    let etag = |description: &str| json!({"schema": {"type": "string"}, "description": description});
    let ok = json!({
        "description": "The calendar.",
        "headers": {"ETag": etag("Changes when the calendar does."), "X-Request-Id": header_ref("XRequestId")},
        "content": {"text/calendar": {"schema": {"type": "string"}}},
    });
    let not_modified = json!({
        "description": "Not changed since the `ETag` sent in `If-None-Match`.",
        "headers": {"ETag": etag("The calendar's `ETag`."), "X-Request-Id": header_ref("XRequestId")},
    });
    Map::from_iter([("200".to_owned(), ok), ("304".to_owned(), not_modified)])
}
