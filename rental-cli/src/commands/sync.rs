//! `rental sync [--property P]`: pulls the channels' feeds now and prints
//! what each feed did, with a progress line per feed on stderr.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use rental_core::pull::{PullResult, SyncReport};
use rental_core::{Rental, Store};
use rental_server::feed_pulls::{FeedPullConfig, FeedPuller};
use rental_server::outbound::OutboundConfig;

use crate::commands::Printed;
use crate::config::Config;
use crate::engine::with_engine;
use crate::error::CliError;
use crate::output::{self, Align, Table};
use crate::remote::{self, Remote, RemoteArgs, RemoteError};

/// Arguments of `rental sync`.
#[derive(Debug, Args)]
#[command(after_help = "Pulls every iCal feed configured on the properties (icalFeeds), or only
those of one property, and imports them: reservations become confirmed
bookings, other events blocked nights. A feed that fails changes nothing it
imported before; it is listed with its error and the command still exits 0.

Examples:
  rental sync
  rental sync --property sea-view
  rental sync --json
  rental sync --url http://127.0.0.1:8080 --api-key \"$KEY\"   # through a running server")]
pub struct SyncArgs {
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// Only the feeds of this property
    #[arg(long, value_name = "SLUG")]
    pub property: Option<String>,
    /// Print the API's JSON result
    #[arg(long)]
    pub json: bool,
}

/// Runs `rental sync` on the local data directory.
pub fn run(args: &SyncArgs, config: &Config) -> Result<Printed, CliError> {
    with_engine!(config, |engine| sync(args, config, engine))
}

fn sync<S: Store + 'static>(args: &SyncArgs, config: &Config, engine: Rental<S>) -> Result<Printed, CliError> {
    let engine = Arc::new(engine);
    let outbound = OutboundConfig { allow_private_targets: config.allow_private_targets, ..OutboundConfig::default() };
    let puller = Arc::new(FeedPuller::new(engine, &FeedPullConfig { outbound, ..FeedPullConfig::default() }));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Serve(format!("cannot start the async runtime: {e}")))?;
    let report = runtime.block_on(puller.sync(args.property.clone(), progress()))?;
    Ok(printed(&report, args.json))
}

/// How long `rental sync --url` waits for the server's report.
const REMOTE_SYNC_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Runs `rental sync` through the API of a running server.
pub fn run_remote(args: &SyncArgs, remote: &Remote) -> Result<Printed, CliError> {
    let remote = remote.clone().with_timeout(REMOTE_SYNC_TIMEOUT);
    let path = remote::with_query("/api/v1/sync/ical", &[("property", args.property.clone())]);
    let answer = remote.post_json(&path, &serde_json::json!({}))?;
    let report: SyncReport = serde_json::from_value(answer).map_err(|e| RemoteError::BadResponse(e.to_string()))?;
    Ok(printed(&report, args.json))
}

/// What `rental sync` prints for `report`, in either mode.
pub fn printed(report: &SyncReport, json: bool) -> Printed {
    let data = if json { output::json(report) } else { render(report) };
    let note = (report.failed > 0)
        .then(|| format!("{} of {} failed; they changed nothing", report.failed, output::count(report.feeds, "feed")));
    Printed { data, note }
}

/// One line per finished feed on stderr, so a long sync shows where it is.
fn progress() -> impl Fn(&PullResult) + Send + Sync + 'static {
    let done = std::sync::atomic::AtomicUsize::new(0);
    move |result| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let outcome = if result.ok { format!("ok, {} events", result.events) } else { "failed".to_owned() };
        let _ = writeln!(std::io::stderr(), "[{n}] {}/{}: {outcome}", result.property, result.feed);
    }
}

fn render(report: &SyncReport) -> String {
    if report.feeds == 0 {
        return "No feeds to pull: add icalFeeds to a property (rental property import).\n".to_owned();
    }
    let mut table = Table::new(&[
        ("PROPERTY", Align::Left),
        ("FEED", Align::Left),
        ("RESULT", Align::Left),
        ("EVENTS", Align::Right),
        ("CREATED", Align::Right),
        ("UPDATED", Align::Right),
        ("CANCELLED", Align::Right),
        ("CONFLICTS", Align::Right),
    ]);
    for r in &report.results {
        let result = if r.ok { "ok".to_owned() } else { format!("failed: {}", r.error.as_deref().unwrap_or("")) };
        let counts = [r.events, r.created, r.updated, r.cancelled, r.conflicts].map(|n| n.to_string());
        let mut row = vec![r.property.to_string(), r.feed.to_string(), result];
        row.extend(counts);
        table.row(row);
    }
    format!(
        "{}\n{}: {} ok, {} failed; {} created, {} updated, {} cancelled, {} conflicts\n",
        table.render(),
        output::count(report.feeds, "feed"),
        report.succeeded,
        report.failed,
        report.created,
        report.updated,
        report.cancelled,
        report.conflicts,
    )
}
