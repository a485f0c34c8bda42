//! `rental serve [--demo] [--listen ADDR]`: runs the HTTP server on the local
//! store until SIGINT or SIGTERM; `--demo` seeds an empty store and prints a
//! key and an admin password.

use std::net::SocketAddr;
use std::sync::Arc;

use clap::Args;
use rental_core::clock::{Entropy, OsEntropy};
use rental_core::keys::Scope;
use rental_core::{Rental, Store};
use rental_server::admin::AdminConfig;
use rental_server::connection::ConnectionLimits;
use rental_server::dispatcher::DispatchConfig;
use rental_server::feed_pulls::FeedPullConfig;
use rental_server::mail::compose::parse_mailbox;
use rental_server::mail::smtp::Security;
use rental_server::mail::{MailConfig, Sender, Smtp};
use rental_server::outbound::OutboundConfig;
use rental_server::ratelimit::RateLimit;
use rental_server::{AppState, ServerConfig, WebhookConfig};

use crate::commands::Printed;
use crate::config::Config;
use crate::engine::with_engine;
use crate::error::CliError;

/// Arguments of `rental serve`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  rental serve --demo
  rental serve --listen 0.0.0.0:8080 --data-dir /var/lib/rental
  RUST_LOG=debug rental serve

Logs go to stderr (RUST_LOG sets the level; default info). SIGINT or SIGTERM
stops accepting, lets requests and webhook attempts in flight finish, and
exits within shutdownGrace (30s).")]
pub struct ServeArgs {
    /// On an empty store, load three sample properties and a few bookings; then print a new read+write key and set and print a new admin password
    #[arg(long)]
    pub demo: bool,
    /// Listen on ADDR (default: 127.0.0.1:8080); port 0 takes a free port, which the first line printed names
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Reverse proxies whose X-Forwarded-For names the client: addresses or networks, comma-separated (127.0.0.1,10.0.0.0/8)
    #[arg(long, value_name = "LIST")]
    pub trusted_proxies: Option<String>,
}

/// The name of the key `--demo` makes; an older one is revoked at each start.
const DEMO_KEY: &str = "demo";

/// Runs the server until a shutdown signal.
pub fn run(args: &ServeArgs, config: &Config) -> Result<Printed, CliError> {
    crate::logging::init(config.log_format);
    with_engine!(config, |engine| serve(args, config, engine))
}

fn serve<S: Store + 'static>(args: &ServeArgs, config: &Config, engine: Rental<S>) -> Result<Printed, CliError> {
    let demo = if args.demo { Some(prepare_demo(&engine)?) } else { None };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Serve(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| CliError::Serve(format!("cannot listen on {}: {e}", config.listen)))?;
        let addr = listener.local_addr().map_err(|e| CliError::Serve(e.to_string()))?;
        let mut server_config = server_config(config);
        server_config.book.secret = crate::page_secret::load_or_make(&config.data_dir)?;
        server_config.admin.base_url = Some(base_url(config, addr));
        server_config.mail = mail_config(config, &base_url(config, addr))?;
        server_config.payments = config.payments.provider().map_err(|e| CliError::Serve(format!("payments: {e}")))?;
        // Reads come from memory: over redb the server is the only writer (it locks the file); over
        // PostgreSQL each read first catches up with what other processes changed.
        let state = AppState::new(Arc::new(engine.with_read_cache()?), &server_config);
        if config.database.is_some() {
            tracing::info!(%addr, store = "postgresql", "listening");
        } else {
            tracing::info!(%addr, data_dir = %config.data_dir.display(), "listening");
        }
        if !config.trusted_proxies.is_empty() {
            tracing::info!(proxies = %config.trusted_proxies, "X-Forwarded-For names the client behind these proxies");
        }
        // Printed once the server can answer: a script or test may read the port from it.
        println!("{}", banner(addr, &base_url(config, addr), demo.as_ref()));
        rental_server::serve(listener, state, rental_server::jobs::shutdown_signal())
            .await
            .map_err(|e| CliError::Serve(e.to_string()))?;
        tracing::info!("stopped");
        Ok(Printed::default())
    })
}

/// What the server takes from the configuration: the rate limit, how webhooks are delivered
/// and how often the channels' feeds are pulled.
fn server_config(config: &Config) -> ServerConfig {
    let outbound = OutboundConfig { allow_private_targets: config.allow_private_targets, ..OutboundConfig::default() };
    let webhooks = WebhookConfig {
        dispatch: DispatchConfig {
            retries: config.webhook_retries.clone(),
            lease: config.webhook_lease,
            ..DispatchConfig::default()
        },
        outbound: outbound.clone(),
    };
    ServerConfig {
        rate_limit: config.rate_limit.map(|r| RateLimit { per_second: f64::from(r), burst: f64::from(r) * 2.0 }),
        webhooks: Some(webhooks),
        feed_pulls: FeedPullConfig { outbound, interval: config.sync_interval, ..FeedPullConfig::default() },
        admin: AdminConfig { secure_cookie: config.base_url.starts_with("https://"), ..AdminConfig::default() },
        connections: ConnectionLimits::default(),
        trusted_proxies: config.trusted_proxies.clone(),
        shutdown_grace: config.shutdown_grace,
        metrics_listen: config.metrics_listen,
        ..ServerConfig::default()
    }
}

/// How guest messages go out: the mail server (with its own CA, if any), `From`, retries and lease.
fn mail_config(config: &Config, base_url: &str) -> Result<MailConfig, CliError> {
    let m = &config.mail;
    let ca = match &m.smtp_ca_file {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| CliError::Serve(format!("cannot read smtpCaFile {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let smtp = match &m.smtp {
        Some(url) => Some(Smtp::new(url, ca.as_deref(), SMTP_TIMEOUT).map_err(|e| CliError::Serve(e.to_string()))?),
        None => None,
    };
    let sender = match m.mail_from.as_str() {
        "" => None,
        from => Some(Sender {
            from: parse_mailbox(from).map_err(|e| CliError::Serve(format!("mailFrom: {e}")))?,
            base_url: Some(base_url.to_owned()),
        }),
    };
    match &smtp {
        None => tracing::info!("no smtp set: guest messages are recorded skipped (no_mail_server)"),
        Some(smtp) if smtp.security() == Security::PlainWithCredentials => tracing::warn!(
            "the mail server's password goes out in plain text (tls=none in smtp): anyone on the path can read it"
        ),
        Some(smtp) => tracing::info!(security = %smtp.security(), "guest messages go out through smtp"),
    }
    Ok(MailConfig { smtp, sender, retries: m.retries.clone(), lease: m.lease, ..MailConfig::default() })
}

/// How long one exchange with the mail server may take.
const SMTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What `--demo` hands out: an API key and the admin password, both new at each start.
#[derive(Debug)]
struct Demo {
    key: String,
    password: String,
}

/// Seeds an empty store, makes a fresh demo key (revoking the previous one)
/// and sets a fresh admin password.
fn prepare_demo(engine: &Rental<impl Store>) -> Result<Demo, CliError> {
    if engine.seed_demo()? {
        tracing::info!("loaded the demo properties and bookings");
    }
    for key in engine.admin().keys()?.into_iter().filter(|k| k.name == DEMO_KEY && k.revoked_at.is_none()) {
        engine.admin().revoke_key(&key.id)?;
    }
    let key = engine.admin().create_key(DEMO_KEY, &[Scope::Read, Scope::Write])?.secret;
    let password = random_password();
    engine.admin().set_admin_password(&password)?;
    Ok(Demo { key, password })
}

/// 20 random characters a person can type: lower-case letters and digits, no look-alikes.
fn random_password() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = [0u8; 20];
    OsEntropy.fill(&mut bytes);
    bytes.iter().map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()])).collect()
}

/// The configured base URL, or the bound address when the port was chosen by the system.
fn base_url(config: &Config, addr: SocketAddr) -> String {
    if config.base_url == format!("http://{}", config.listen) {
        format!("http://{addr}")
    } else {
        config.base_url.clone()
    }
}

/// What `serve` prints once it can answer. Its first line names the address it listens on (the
/// port the system chose for `--listen 127.0.0.1:0`), and the public base URL when one is set.
fn banner(addr: SocketAddr, base_url: &str, demo: Option<&Demo>) -> String {
    let local = format!("http://{addr}");
    let public = if base_url == local { String::new() } else { format!(", public address {base_url}") };
    let listening = format!("rental is listening on {local}{public}  (API description: {base_url}/api/openapi.json)");
    let demo = demo.map(|Demo { key, password }| {
        format!(
            "\n\nDemo API key (read+write), shown once:\n  {key}\n\n\
             Admin dashboard: {base_url}/admin  (password, shown once: {password})\n\
             Booking page: {base_url}/book/sea-view\n\nTry:\n  \
             curl -H 'Authorization: Bearer {key}' {base_url}/api/v1/properties\n  \
             curl -H 'Authorization: Bearer {key}' {base_url}/api/v1/ha/summary"
        )
    });
    format!("{listening}{}\n\nStop with Ctrl-C.", demo.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_names_the_address_it_listens_on_and_the_public_one_when_they_differ() {
        let addr: SocketAddr = "127.0.0.1:41234".parse().unwrap();
        let local = banner(addr, "http://127.0.0.1:41234", None);
        assert!(local.starts_with("rental is listening on http://127.0.0.1:41234  (API description:"), "{local}");
        let behind = banner(addr, "https://stays.example", None);
        let first = behind.lines().next().unwrap();
        assert_eq!(
            first,
            "rental is listening on http://127.0.0.1:41234, public address https://stays.example  \
             (API description: https://stays.example/api/openapi.json)"
        );
    }
}
