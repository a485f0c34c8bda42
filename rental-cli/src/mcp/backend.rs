//! Where the tools' answers come from: the local store (through
//! `rental_core::Rental`) or a running server's API (through [`Remote`]).
//! Either way a tool gets the API's JSON, or the problem's detail.

use std::sync::Arc;

use rental_core::{NewBooking, QuoteRequest, Rental, Store};
use serde_json::{Value, json};

use crate::mcp::args::AvailabilityRequest;
use crate::remote::{self, Remote};

/// The API's JSON as text, or the sentence of the problem that refused the call.
pub type Outcome = Result<String, String>;

/// The store the tools work on.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The local store, held by this process while it runs.
    Local(Arc<dyn LocalEngine>),
    /// A running server, through its API.
    Remote(Remote),
}

impl Backend {
    /// `GET /api/v1/properties`: `{"data": [Property...]}`.
    pub async fn list_properties(&self) -> Outcome {
        match self {
            Backend::Local(engine) => local(engine, |r| r.list_properties()).await,
            Backend::Remote(remote) => text(remote.get("/api/v1/properties").await),
        }
    }

    /// `GET /api/v1/properties/{slug}/availability?from=&to=`.
    pub async fn availability(&self, req: AvailabilityRequest) -> Outcome {
        match self {
            Backend::Local(engine) => local(engine, move |r| r.availability(&req)).await,
            Backend::Remote(remote) => {
                let path = remote::with_query(
                    &format!("/api/v1/properties/{}/availability", remote::encode(&req.property)),
                    &[("from", req.from.map(|d| d.to_string())), ("to", req.to.map(|d| d.to_string()))],
                );
                text(remote.get(&path).await)
            }
        }
    }

    /// `POST /api/v1/quotes`.
    pub async fn quote(&self, req: QuoteRequest) -> Outcome {
        match self {
            Backend::Local(engine) => local(engine, move |r| r.quote(&req)).await,
            Backend::Remote(remote) => text(remote.post("/api/v1/quotes", &req).await),
        }
    }

    /// `POST /api/v1/bookings` with `Idempotency-Key: key`: the new booking, or
    /// the one an earlier call with the same key and request made.
    pub async fn create_booking(&self, req: NewBooking, key: Option<String>) -> Outcome {
        match self {
            Backend::Local(engine) => local(engine, move |r| r.create_booking(&req, key.as_deref())).await,
            Backend::Remote(remote) => text(remote.post_idempotent("/api/v1/bookings", &req, key.as_deref()).await),
        }
    }
}

/// Runs `f` on the store off the async threads (redb calls block).
///
/// This process holds the store for as long as the agent's session lasts and
/// no server runs to expire lapsed checkouts, so each call expires them first:
/// an agent never sees nights held by a request that has already lapsed.
async fn local<F>(engine: &Arc<dyn LocalEngine>, f: F) -> Outcome
where
    F: FnOnce(&dyn LocalEngine) -> rental_core::Result<String> + Send + 'static,
{
    let engine = Arc::clone(engine);
    match tokio::task::spawn_blocking(move || engine.expire_due().and_then(|()| f(engine.as_ref()))).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(e) => {
            tracing::error!(error = %e, "a tool call on the store failed");
            Err("an unexpected error occurred; it has been logged".to_owned())
        }
    }
}

/// What the tools call on a local engine, whichever store it is on: each
/// answers the API's JSON as text.
pub trait LocalEngine: std::fmt::Debug + Send + Sync {
    /// Expires the checkouts that have lapsed.
    fn expire_due(&self) -> rental_core::Result<()>;
    /// `{"data": [Property...]}`, as the API lists them.
    fn list_properties(&self) -> rental_core::Result<String>;
    /// The availability of the asked nights.
    fn availability(&self, req: &AvailabilityRequest) -> rental_core::Result<String>;
    /// A quote.
    fn quote(&self, req: &QuoteRequest) -> rental_core::Result<String>;
    /// The booking made (or made before under the same idempotency key).
    fn create_booking(&self, req: &NewBooking, key: Option<&str>) -> rental_core::Result<String>;
}

impl<S: Store> LocalEngine for Rental<S> {
    fn expire_due(&self) -> rental_core::Result<()> {
        self.worker().expire_due().map(drop)
    }
    fn list_properties(&self) -> rental_core::Result<String> {
        let properties = self.properties()?;
        let data: Vec<_> = properties.iter().map(rental_core::Property::public).collect();
        Ok(json!({ "data": data }).to_string())
    }
    fn availability(&self, req: &AvailabilityRequest) -> rental_core::Result<String> {
        Ok(utf8(Rental::availability(self, &req.property, req.from, req.to)?.to_json()))
    }
    fn quote(&self, req: &QuoteRequest) -> rental_core::Result<String> {
        Ok(utf8(Rental::quote(self, req)?.to_json()))
    }
    fn create_booking(&self, req: &NewBooking, key: Option<&str>) -> rental_core::Result<String> {
        let created = Rental::create_booking(self, req, key)?;
        Ok(serde_json::to_string(&created.booking).unwrap_or_default())
    }
}

fn text(answer: Result<Value, remote::RemoteError>) -> Outcome {
    answer.map(|v| v.to_string()).map_err(|e| e.to_string())
}

/// The library writes its JSON as UTF-8.
fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_default()
}
