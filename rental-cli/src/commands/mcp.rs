//! `rental mcp`: runs the agent-tool server (Model Context Protocol over
//! stdio) on the local store, or in front of a running server with `--url`.

use std::sync::Arc;

use clap::Args;
use rental_core::{Rental, Store};

use crate::commands::Printed;
use crate::error::CliError;
use crate::mcp::{self, Backend};
use crate::remote::{Remote, RemoteArgs};

/// Arguments of `rental mcp`.
#[derive(Debug, Args)]
#[command(after_help = MCP_HELP)]
pub struct McpArgs {
    /// Where the tools work: the local data directory, or a running server
    #[command(flatten)]
    pub remote: RemoteArgs,
}

const MCP_HELP: &str = r#"The tools: list_properties, check_availability, get_quote and create_booking
(bookings made through it have source "agent" and stay pending until the host
confirms them). stdin and stdout carry JSON-RPC; logs go to stderr (RUST_LOG
sets the level; default warn). It stops when the client closes stdin.

Without --url it holds the local data directory, so no `rental serve` may run
on it at the same time; with --url it works through that server's API with a
key that has the read and write scopes.

Examples:
  rental mcp --data-dir ./rental-data
  rental mcp --url http://127.0.0.1:8080 --api-key "$KEY"

An MCP client configuration (Claude Desktop, and others alike):
  {"mcpServers": {"rental": {"command": "rental",
    "args": ["mcp", "--url", "http://127.0.0.1:8080"],
    "env": {"RENTAL_API_KEY": "rk_..."}}}}"#;

/// Serves the tools on the local store.
pub fn run<S: Store + 'static>(engine: Rental<S>) -> Result<Printed, CliError> {
    serve(Backend::Local(Arc::new(engine)))
}

/// Serves the tools in front of a running server.
pub fn run_remote(remote: Remote) -> Result<Printed, CliError> {
    serve(Backend::Remote(remote))
}

fn serve(backend: Backend) -> Result<Printed, CliError> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Serve(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(mcp::serve(backend)).map_err(CliError::Serve)?;
    Ok(Printed::default())
}

/// Logs to stderr, never stdout: stdout is the JSON-RPC channel.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
}
