//! The endpoints for running the server, in the route table: its OpenAPI
//! document, health, readiness, metrics and backups, each row with its handler and operation.

use http::Method;
use rental_core::Store;
use rental_core::keys::Scope;

use super::{Endpoint, Table};
use crate::openapi::{Operation, Success};
use crate::{backup, health, metrics, openapi};

impl<S: Store + 'static> Table<S> {
    /// The OpenAPI document, health, readiness, metrics and backups.
    pub(super) const OPERATIONS: &'static [Endpoint<S>] = &[
        Endpoint {
            method: Method::GET,
            path: "/api/openapi.json",
            scope: None,
            handler: |_| Box::pin(async { Ok(openapi::response()) }),
            operation: Operation {
                id: "getOpenApi",
                tag: "Meta",
                summary: "This OpenAPI description",
                description: "The machine-readable description of the API, as OpenAPI 3.1 JSON. Public: no key needed.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "The OpenAPI document.", ""),
                errors: &["Unavailable"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/healthz",
            scope: None,
            handler: |_| Box::pin(async { health::healthz() }),
            operation: Operation {
                id: "getHealth",
                tag: "Operations",
                summary: "Whether the process runs",
                description: "200 `{\"status\": \"ok\"}` while the process runs, also while it shuts down; it touches \
                    no store. For a liveness probe. Public: no key needed.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "The process runs.", ""),
                errors: &[],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/readyz",
            scope: None,
            handler: |c| Box::pin(async move { health::readyz(c.state()).await }),
            operation: Operation {
                id: "getReadiness",
                tag: "Operations",
                summary: "Whether this server should get traffic",
                description: "200 `{\"status\": \"ready\"}` when the store answers a read within 1 s, its schema is the \
                    one this build knows and shutdown has not begun; else 503 `unavailable` whose `checks` say which \
                    failed. Once shutdown begins, 503 (or the listener is closed) at once. For a load balancer's \
                    health check. Public: no key needed.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Json(200, "Ready.", ""),
                errors: &["Unavailable"],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/metrics",
            scope: Some(Scope::Metrics),
            handler: |c| Box::pin(async move { metrics::response(c.state().metrics(), c.rental()).await }),
            operation: Operation {
                id: "getMetrics",
                tag: "Operations",
                summary: "Prometheus metrics",
                description: "The Prometheus text exposition (version 0.0.4): requests by route template and status, \
                    request and commit durations, bookings created and refused, webhook deliveries and backlog, feed \
                    pulls and freshness, guest messages, and the process's memory, CPU, descriptors and start time. \
                    For a key with the `metrics` scope; `metricsListen` serves it on another address without a key.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Text("text/plain; version=0.0.4", "The exposition."),
                errors: &[],
            },
        },
        Endpoint {
            method: Method::GET,
            path: "/api/v1/backup",
            scope: Some(Scope::Backup),
            handler: |c| Box::pin(async move { backup::download(c.rental()).await }),
            operation: Operation {
                id: "getBackup",
                tag: "Operations",
                summary: "A backup of the whole store",
                description: "One consistent snapshot of every record as a backup file (JSON lines: a versioned header, \
                    one record a line, a trailer with the counts and a SHA-256 checksum), which `rental restore` loads \
                    into an empty data directory or database of either kind. The server goes on answering meanwhile. \
                    The file holds secrets (webhook secrets, key and password hashes): keep it as such. For a key \
                    with the `backup` scope; `rental backup --url` calls it.",
                parameters: &["RequestId"],
                body: None,
                success: Success::Text("application/x-ndjson", "The backup file."),
                errors: &[],
            },
        },
    ];
}
