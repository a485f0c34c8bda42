//! `GET /metrics` (docs/API.md section 22): the Prometheus text format 0.0.4,
//! from counters and histograms that requests update without taking a lock.
//!
//! The families are kept by the `metrics` facade's one process-wide recorder
//! (a Prometheus one, installed by the first server of the process); gauges
//! that describe the store (pending webhooks, feed ages) and the `process_*`
//! families are read when scraped.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use chrono::Utc;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use rental_core::{Rental, Store};

use crate::problem::Problem;

/// `rental_build_info{version}`.
pub const BUILD_INFO: &str = "rental_build_info";
/// `rental_http_requests_total{method,route,status}`.
pub const HTTP_REQUESTS: &str = "rental_http_requests_total";
/// `rental_http_request_duration_seconds{method,route}` (histogram).
pub const HTTP_DURATION: &str = "rental_http_request_duration_seconds";
/// `rental_feed_pulls_total{outcome}`: `ok` or `failed`.
pub const FEED_PULLS: &str = "rental_feed_pulls_total";
/// `rental_webhook_pending`: deliveries not yet finished.
pub const WEBHOOK_PENDING: &str = "rental_webhook_pending";
/// `rental_webhook_oldest_pending_seconds`: the age of the oldest of them.
pub const WEBHOOK_OLDEST: &str = "rental_webhook_oldest_pending_seconds";
/// `rental_feed_last_success_age_seconds{property,feed}`.
pub const FEED_AGE: &str = "rental_feed_last_success_age_seconds";

/// How often histogram samples are folded into their buckets when nobody scrapes.
pub const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// Request durations, in seconds: from a cached read to a slow write.
const REQUEST_BUCKETS: &[f64] = &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// Commit durations, in seconds: an fsync to a stalled disk.
const COMMIT_BUCKETS: &[f64] = &[0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0];

/// The process's recorder, installed once.
static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// A handle on the process's metrics.
#[derive(Clone)]
pub struct Metrics {
    handle: Option<PrometheusHandle>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").field("installed", &self.handle.is_some()).finish()
    }
}

impl Metrics {
    /// The process's metrics, installing the Prometheus recorder on first use.
    /// If an embedder installed another recorder first, `/metrics` answers 503
    /// and counting goes to theirs.
    pub fn install() -> Metrics {
        let handle = HANDLE.get_or_init(|| {
            let built = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(HTTP_DURATION.to_owned()), REQUEST_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full(rental_core::metrics::STORE_COMMIT_DURATION.to_owned()),
                        COMMIT_BUCKETS,
                    )
                })
                .map_err(|e| e.to_string())
                .and_then(|b| b.install_recorder().map_err(|e| e.to_string()));
            match built {
                Ok(handle) => {
                    describe();
                    Some(handle)
                }
                Err(error) => {
                    tracing::warn!(%error, "another metrics recorder is installed; /metrics is off");
                    None
                }
            }
        });
        Metrics { handle: handle.clone() }
    }

    /// Folds histogram samples into buckets; run every [`UPKEEP_INTERVAL`] so
    /// that an unscraped server keeps no growing list of samples.
    pub fn upkeep(&self) {
        if let Some(handle) = &self.handle {
            handle.run_upkeep();
        }
    }

    /// The exposition: the recorded families, then what is read now from the store and `/proc`.
    pub fn render(&self, store: &StoreGauges) -> Option<String> {
        let handle = self.handle.as_ref()?;
        let mut text = handle.render();
        store.write(&mut text);
        process::write(&mut text);
        Some(text)
    }
}

/// Names each family and sets a zero series for each known label value, so
/// the first scrape shows every family of docs/API.md section 22 but the per-feed ages.
fn describe() {
    use rental_core::metrics as core;
    metrics::describe_gauge!(BUILD_INFO, "The running rental's version; always 1.");
    metrics::gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    metrics::describe_counter!(HTTP_REQUESTS, "HTTP requests answered, by method, route template and status.");
    metrics::describe_histogram!(HTTP_DURATION, "Time to answer an HTTP request, in seconds.");
    metrics::describe_counter!(
        core::BOOKINGS_CREATED,
        "Bookings created, by source (api, admin, cli, agent, page, other)."
    );
    metrics::describe_counter!(core::BOOKING_CONFLICTS, "Booking creations refused because a night was taken.");
    metrics::describe_histogram!(core::STORE_COMMIT_DURATION, "Time to commit a write transaction, in seconds.");
    metrics::describe_counter!(
        core::WEBHOOK_DELIVERIES,
        "Webhook attempts recorded, by outcome (delivered, retry, failed)."
    );
    metrics::describe_counter!(FEED_PULLS, "Channel feed pulls, by outcome (ok, failed).");
    metrics::describe_counter!(core::MESSAGES, "Guest messages, by kind and outcome.");
    metrics::counter!(core::BOOKING_CONFLICTS).absolute(0);
    for outcome in ["delivered", "retry", "failed"] {
        metrics::counter!(core::WEBHOOK_DELIVERIES, "outcome" => outcome).absolute(0);
    }
    for outcome in ["ok", "failed"] {
        metrics::counter!(FEED_PULLS, "outcome" => outcome).absolute(0);
    }
    for source in core::SOURCE_LABELS {
        metrics::counter!(core::BOOKINGS_CREATED, "source" => *source).absolute(0);
    }
    for kind in rental_core::message::MessageKind::ALL {
        for outcome in core::MESSAGE_OUTCOMES {
            metrics::counter!(core::MESSAGES, "kind" => kind.as_str(), "outcome" => *outcome).absolute(0);
        }
    }
    // The request families get the one series every scraper makes: its own first scrape.
    let (method, route) = ("GET", "/metrics");
    metrics::counter!(HTTP_REQUESTS, "method" => method, "route" => route, "status" => "200").absolute(0);
    let _ = metrics::histogram!(HTTP_DURATION, "method" => method, "route" => route);
    let _ = metrics::histogram!(core::STORE_COMMIT_DURATION);
}

/// Records one answered request under its route template.
///
/// The counter and histogram of each (method, route, status) are looked up
/// in the recorder once per worker thread and kept: a request then costs two
/// atomic updates, not two registry lookups that hash their labels.
pub fn request(method: &http::Method, route: &'static str, status: StatusCode, took: Duration) {
    let method = method_label(method);
    let seconds = took.as_secs_f64();
    HANDLES.with(|handles| {
        let mut handles = handles.borrow_mut();
        let (counter, histogram) = handles.entry((method, route, status.as_u16())).or_insert_with(|| {
            let counter = metrics::counter!(HTTP_REQUESTS, "method" => method, "route" => route, "status" => status_label(status));
            (counter, metrics::histogram!(HTTP_DURATION, "method" => method, "route" => route))
        });
        counter.increment(1);
        histogram.record(seconds);
    });
}

/// A request family's series: method, route and status.
type Family = (&'static str, &'static str, u16);

thread_local! {
    /// This thread's handles on each request family's series.
    static HANDLES: std::cell::RefCell<std::collections::HashMap<Family, (metrics::Counter, metrics::Histogram)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// A method as a label: the ones the server routes, else `other` (a client can send any word).
fn method_label(method: &http::Method) -> &'static str {
    match *method {
        http::Method::GET => "GET",
        http::Method::POST => "POST",
        http::Method::PATCH => "PATCH",
        http::Method::DELETE => "DELETE",
        http::Method::HEAD => "HEAD",
        http::Method::PUT => "PUT",
        http::Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// A status as a label, without allocating for the common ones.
fn status_label(status: StatusCode) -> metrics::SharedString {
    let common = match status.as_u16() {
        200 => "200",
        201 => "201",
        204 => "204",
        304 => "304",
        400 => "400",
        401 => "401",
        403 => "403",
        404 => "404",
        409 => "409",
        422 => "422",
        429 => "429",
        503 => "503",
        _ => return metrics::SharedString::from(status.as_u16().to_string()),
    };
    metrics::SharedString::const_str(common)
}

/// What the store says at scrape time: webhooks waiting, and each feed's last success.
#[derive(Debug, Default)]
pub struct StoreGauges {
    pending: usize,
    oldest_seconds: f64,
    feeds: Vec<(String, String, Option<f64>)>,
}

impl StoreGauges {
    /// Reads them in one snapshot (on the blocking pool: this is a store read).
    pub fn read<S: Store>(rental: &Rental<S>) -> rental_core::Result<StoreGauges> {
        let now = Utc::now();
        let (pending, oldest) = rental.worker().webhook_backlog()?;
        let feeds = rental
            .worker()
            .feed_states()?
            .into_iter()
            .map(|f| {
                let age = f.last_success_at.map(|at| seconds_since(at, now));
                (f.property.as_str().to_owned(), f.feed.as_str().to_owned(), age)
            })
            .collect();
        Ok(StoreGauges { pending, oldest_seconds: oldest.map_or(0.0, |at| seconds_since(at, now)), feeds })
    }

    fn write(&self, out: &mut String) {
        let _ = writeln!(out, "# HELP {WEBHOOK_PENDING} Webhook deliveries not yet delivered or given up.");
        let _ = writeln!(out, "# TYPE {WEBHOOK_PENDING} gauge\n{WEBHOOK_PENDING} {}\n", self.pending);
        let _ =
            writeln!(out, "# HELP {WEBHOOK_OLDEST} Age of the oldest pending webhook delivery, in seconds (0: none).");
        let _ = writeln!(out, "# TYPE {WEBHOOK_OLDEST} gauge\n{WEBHOOK_OLDEST} {}\n", self.oldest_seconds);
        let _ = writeln!(out, "# HELP {FEED_AGE} Seconds since each channel feed was last pulled successfully.");
        let _ = writeln!(out, "# TYPE {FEED_AGE} gauge");
        for (property, feed, age) in &self.feeds {
            // A feed never pulled successfully has no age: it is left out (alert on `absent`).
            if let Some(age) = age {
                let _ = writeln!(out, "{FEED_AGE}{{property=\"{property}\",feed=\"{feed}\"}} {age}");
            }
        }
        out.push('\n');
    }
}

/// Seconds from `at` to `now`, 0 when `at` is later.
fn seconds_since(at: chrono::DateTime<Utc>, now: chrono::DateTime<Utc>) -> f64 {
    (now - at).to_std().map_or(0.0, |d| d.as_secs_f64())
}

/// The `/metrics` answer, or 503 when the recorder is someone else's or the store did not answer.
pub async fn response<S: Store + 'static>(metrics: &Metrics, rental: &Arc<Rental<S>>) -> crate::reply::Reply {
    let gauges = crate::reply::blocking(rental, |r| StoreGauges::read(r)).await?;
    let text =
        metrics.render(&gauges).ok_or_else(|| Problem::unavailable("metrics are not recorded by this server"))?;
    let mut response = Response::new(Full::new(Bytes::from(text)));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    Ok(response)
}

/// The standard `process_*` families, from `/proc/self` (Linux; elsewhere, none).
mod process {
    use std::fmt::Write as _;

    /// Kernel clock ticks per second: 100 on every Linux this runs on (`getconf CLK_TCK`).
    const TICKS: f64 = 100.0;
    /// Bytes per page (`getconf PAGESIZE`) on x86-64 and most arm64 kernels.
    const PAGE: f64 = 4096.0;

    pub(super) fn write(out: &mut String) {
        let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return };
        // Fields after the command name, which is in parentheses and may hold spaces.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<f64>().ok());
        if let (Some(user), Some(system)) = (field(14), field(15)) {
            gauge(
                out,
                "process_cpu_seconds_total",
                "counter",
                "User and system CPU time spent, in seconds.",
                (user + system) / TICKS,
            );
        }
        if let Some(rss) = field(24) {
            gauge(out, "process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", rss * PAGE);
        }
        if let Some(vsize) = field(23) {
            gauge(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size, in bytes.", vsize);
        }
        if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
            let open = u32::try_from(fds.count()).map_or(f64::from(u32::MAX), f64::from);
            gauge(out, "process_open_fds", "gauge", "Open file descriptors.", open);
        }
        if let (Some(start_ticks), Some(boot)) = (field(22), boot_time()) {
            let began = boot + start_ticks / TICKS;
            gauge(
                out,
                "process_start_time_seconds",
                "gauge",
                "Start time of the process since the epoch, in seconds.",
                began,
            );
        }
    }

    fn gauge(out: &mut String, name: &str, kind: &str, help: &str, value: f64) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n");
    }

    /// The boot time, in seconds since the epoch (`btime` of `/proc/stat`).
    fn boot_time() -> Option<f64> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        stat.lines().find_map(|l| l.strip_prefix("btime ")).and_then(|v| v.trim().parse().ok())
    }
}
