//! The configuration (docs/API.md section 11): `rental.toml`, overridden by
//! `RENTAL_*` environment variables, overridden by command-line flags.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::TimeDelta;
use rental_core::Settings;
use rental_server::client_addr::TrustedProxies;
use serde::Deserialize;

use crate::duration;

mod key;
mod parse;

use self::key::Key;
pub use self::parse::toml_message;
use self::parse::{parse_base_url, parse_bool, parse_database, parse_duration, parse_positive, parse_rate};
use crate::payments_config::{PaymentsFile, PaymentsLayers};
use rental_server::payments::PaymentsConfig;

/// The file read when `--config` is not given, if it exists.
pub const DEFAULT_FILE: &str = "rental.toml";

/// Every setting, resolved and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Where the server listens (`listen`).
    pub listen: SocketAddr,
    /// The directory holding the store (`dataDir`).
    pub data_dir: PathBuf,
    /// The public URL of the server, without a trailing slash (`baseUrl`).
    pub base_url: String,
    /// `timezone`, `codePrefix`, `checkoutTtl` and `retention`, in the form the library takes them.
    pub settings: Settings,
    /// How often the channels' feeds are pulled; `None` when `0` (`syncInterval`).
    pub sync_interval: Option<Duration>,
    /// The waits between webhook delivery attempts (`webhookRetries`).
    pub webhook_retries: Vec<Duration>,
    /// Whether feeds and webhooks may target private addresses (`allowPrivateTargets`).
    pub allow_private_targets: bool,
    /// API requests per second allowed per key; `None` when `0` (`rateLimit`).
    pub rate_limit: Option<u32>,
    /// The reverse proxies whose `X-Forwarded-For` is believed (`trustedProxies`); none by default.
    pub trusted_proxies: TrustedProxies,
    /// How long `serve` may take to stop after SIGTERM (`shutdownGrace`, 30s).
    pub shutdown_grace: Duration,
    /// How long a claimed webhook delivery stays leased unless renewed (`webhookLease`, 10s).
    pub webhook_lease: Duration,
    /// The PostgreSQL database every process shares (`database`); `None`: the redb store in `data_dir`.
    pub database: Option<String>,
    /// A second address serving `GET /metrics` without a key (`metricsListen`); `None`: off.
    pub metrics_listen: Option<SocketAddr>,
    /// How log lines are written (`logFormat`): `text` or one JSON object a line.
    pub log_format: LogFormat,
    /// Guest messages: the mail server, sender, retries and lease (docs/API.md section 21).
    pub mail: MailSettings,
    /// `[payments]`: the payment provider and its keys (docs/API.md section 23).
    pub payments: PaymentsConfig,
}

/// The settings of guest messages; `hostEmail` is in [`Settings`].
#[derive(Clone, PartialEq, Eq, Default)]
pub struct MailSettings {
    /// The mail server's URL (`smtp`); `None`: messages are recorded `skipped`. Holds a password.
    pub smtp: Option<String>,
    /// A PEM file of a CA to trust for the mail server beside Mozilla's roots (`smtpCaFile`).
    pub smtp_ca_file: Option<PathBuf>,
    /// `From` of every message (`mailFrom`), such as `Sea View <stay@example.com>`.
    pub mail_from: String,
    /// The waits between send attempts (`mailRetries`).
    pub retries: Vec<Duration>,
    /// How long a claimed message stays leased (`mailLease`, 10s, renewed while a send is in flight).
    pub lease: Duration,
}

impl fmt::Debug for MailSettings {
    /// Never prints the mail server's URL: it may hold a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MailSettings")
            .field("smtp", &self.smtp.as_ref().map(|_| "<set>"))
            .field("smtp_ca_file", &self.smtp_ca_file)
            .field("mail_from", &self.mail_from)
            .field("retries", &self.retries)
            .field("lease", &self.lease)
            .finish()
    }
}

/// How `serve` writes its log lines (`logFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines (the default).
    #[default]
    Text,
    /// One JSON object a line: `time`, `level`, `message` and the fields.
    Json,
}

/// What the command line says about the configuration.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--data-dir DIR`.
    pub data_dir: Option<PathBuf>,
    /// `--listen ADDR` (of `serve`).
    pub listen: Option<String>,
    /// `--trusted-proxies LIST` (of `serve`).
    pub trusted_proxies: Option<String>,
    /// `--database URL`.
    pub database: Option<String>,
}

/// Why the configuration could not be loaded.
#[derive(Debug)]
pub enum ConfigError {
    /// The config file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The config file is not TOML of the expected shape.
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line and column.
        message: String,
    },
    /// A setting has a value that cannot be used.
    Invalid {
        /// Where the value came from: `rental.toml: checkoutTtl`, `RENTAL_TIMEZONE`.
        from: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, error } => write!(f, "cannot read config file {}: {error}", path.display()),
            ConfigError::Parse { path, message } => write!(f, "config file {}: {message}", path.display()),
            ConfigError::Invalid { from, message } => write!(f, "{from}: {message}"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The name in rental.toml of every setting, `dataDir` too (for `rental --help`'s test).
#[cfg(test)]
pub(crate) fn setting_names() -> impl Iterator<Item = &'static str> {
    Key::ALL.into_iter().map(Key::file_name).chain(["dataDir"])
}

const DATA_DIR_ENV: &str = "RENTAL_DATA_DIR";

/// A setting's text and where it came from, for error messages.
#[derive(Debug, Clone)]
struct Given {
    text: String,
    from: String,
}

/// The settings as given, each layer overwriting the one below.
#[derive(Debug, Default)]
struct Layers {
    values: Vec<(Key, Given)>,
    data_dir: Option<PathBuf>,
    payments: PaymentsLayers,
}

impl Layers {
    fn set(&mut self, key: Key, text: String, from: String) {
        self.values.retain(|(k, _)| *k != key);
        self.values.push((key, Given { text, from }));
    }

    fn get(&self, key: Key) -> Option<&Given> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, g)| g)
    }
}

/// `rental.toml` as written: camelCase keys, nothing unknown.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileConfig {
    listen: Option<String>,
    data_dir: Option<PathBuf>,
    base_url: Option<String>,
    timezone: Option<String>,
    code_prefix: Option<String>,
    sync_interval: Option<toml::Value>,
    checkout_ttl: Option<toml::Value>,
    webhook_retries: Option<toml::Value>,
    allow_private_targets: Option<bool>,
    rate_limit: Option<u32>,
    retention: Option<toml::Value>,
    trusted_proxies: Option<toml::Value>,
    shutdown_grace: Option<toml::Value>,
    webhook_lease: Option<toml::Value>,
    database: Option<String>,
    metrics_listen: Option<String>,
    log_format: Option<String>,
    smtp: Option<String>,
    smtp_ca_file: Option<String>,
    mail_from: Option<String>,
    host_email: Option<String>,
    mail_retries: Option<toml::Value>,
    mail_lease: Option<toml::Value>,
    payments: Option<PaymentsFile>,
}

impl Config {
    /// Reads the config file (`--config`, else `./rental.toml` if it exists),
    /// then the environment (through `env`), then the flags.
    pub fn load(flags: &Flags, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let file = match &flags.config {
            Some(path) => Some(read_file(path)?),
            None => Some(Path::new(DEFAULT_FILE)).filter(|p| p.is_file()).map(read_file).transpose()?,
        };
        let file = file.as_ref().map(|(path, text)| (path.as_path(), text.as_str()));
        Config::from_sources(file, env, flags)
    }

    /// Resolves the settings from a config file's text, the environment and the flags.
    fn from_sources(
        file: Option<(&Path, &str)>,
        env: &dyn Fn(&str) -> Option<String>,
        flags: &Flags,
    ) -> Result<Config, ConfigError> {
        let mut layers = Layers::default();
        if let Some((path, text)) = file {
            apply_file(&mut layers, path, text)?;
        }
        apply_env(&mut layers, env);
        if let Some(dir) = &flags.data_dir {
            layers.data_dir = Some(dir.clone());
        }
        if let Some(listen) = &flags.listen {
            layers.set(Key::Listen, listen.clone(), "--listen".to_owned());
        }
        if let Some(proxies) = &flags.trusted_proxies {
            layers.set(Key::TrustedProxies, proxies.clone(), "--trusted-proxies".to_owned());
        }
        if let Some(url) = &flags.database {
            layers.set(Key::Database, url.clone(), "--database".to_owned());
        }
        resolve(&layers)
    }
}

fn read_file(path: &Path) -> Result<(PathBuf, String), ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read { path: path.to_owned(), error })?;
    Ok((path.to_owned(), text))
}

fn apply_file(layers: &mut Layers, path: &Path, text: &str) -> Result<(), ConfigError> {
    let file: FileConfig = toml::from_str(text)
        .map_err(|e| ConfigError::Parse { path: path.to_owned(), message: toml_message(text, &e) })?;
    let from = |key: Key| format!("{}: {}", path.display(), key.file_name());
    let duration = |key: Key, value: Option<toml::Value>| value.map(|v| value_text(&v, &from(key))).transpose();
    let texts = [
        (Key::Listen, file.listen),
        (Key::BaseUrl, file.base_url),
        (Key::Timezone, file.timezone),
        (Key::CodePrefix, file.code_prefix),
        (Key::SyncInterval, duration(Key::SyncInterval, file.sync_interval)?),
        (Key::CheckoutTtl, duration(Key::CheckoutTtl, file.checkout_ttl)?),
        (Key::WebhookRetries, duration(Key::WebhookRetries, file.webhook_retries)?),
        (Key::AllowPrivateTargets, file.allow_private_targets.map(|b| b.to_string())),
        (Key::RateLimit, file.rate_limit.map(|n| n.to_string())),
        (Key::Retention, duration(Key::Retention, file.retention)?),
        (Key::TrustedProxies, file.trusted_proxies.map(|v| list_text(&v, &from(Key::TrustedProxies))).transpose()?),
        (Key::ShutdownGrace, duration(Key::ShutdownGrace, file.shutdown_grace)?),
        (Key::WebhookLease, duration(Key::WebhookLease, file.webhook_lease)?),
        (Key::Database, file.database),
        (Key::MetricsListen, file.metrics_listen),
        (Key::LogFormat, file.log_format),
        (Key::Smtp, file.smtp),
        (Key::SmtpCaFile, file.smtp_ca_file),
        (Key::MailFrom, file.mail_from),
        (Key::HostEmail, file.host_email),
        (Key::MailRetries, duration(Key::MailRetries, file.mail_retries)?),
        (Key::MailLease, duration(Key::MailLease, file.mail_lease)?),
    ];
    for (key, text) in texts {
        if let Some(text) = text {
            layers.set(key, text, from(key));
        }
    }
    if let Some(payments) = file.payments {
        layers.payments.apply_file(payments, &path.display().to_string());
    }
    if let Some(dir) = file.data_dir {
        // A relative data directory is relative to the file that names it.
        layers.data_dir = Some(path.parent().map_or_else(|| dir.clone(), |parent| parent.join(&dir)));
    }
    Ok(())
}

/// A duration or list of durations in the file: `"30m"`, `0`, or `["10s", "1m"]`.
fn value_text(value: &toml::Value, from: &str) -> Result<String, ConfigError> {
    let invalid = || ConfigError::Invalid { from: from.to_owned(), message: format!("{value} is not a duration") };
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(0) => Ok("0".to_owned()),
        toml::Value::Array(items) => {
            let texts: Option<Vec<&str>> = items.iter().map(toml::Value::as_str).collect();
            texts.map(|t| t.join(",")).ok_or_else(invalid)
        }
        _ => Err(invalid()),
    }
}

/// A list in the file: `["10.0.0.0/8", "::1"]` or `"10.0.0.0/8, ::1"`.
fn list_text(value: &toml::Value, from: &str) -> Result<String, ConfigError> {
    let texts = match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Array(items) => {
            items.iter().map(toml::Value::as_str).collect::<Option<Vec<_>>>().map(|t| t.join(","))
        }
        _ => None,
    };
    texts.ok_or_else(|| ConfigError::Invalid {
        from: from.to_owned(),
        message: format!("{value} is not a list of addresses"),
    })
}

fn apply_env(layers: &mut Layers, env: &dyn Fn(&str) -> Option<String>) {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    for key in Key::ALL {
        if let Some(text) = set(key.env_name()) {
            layers.set(key, text, key.env_name().to_owned());
        }
    }
    layers.payments.apply_env(env);
    if let Some(dir) = set(DATA_DIR_ENV) {
        layers.data_dir = Some(PathBuf::from(dir));
    }
}

fn resolve(layers: &Layers) -> Result<Config, ConfigError> {
    let listen: SocketAddr = setting(layers, Key::Listen, "127.0.0.1:8080", |s| {
        s.trim().parse().map_err(|_| format!("{s:?} is not an address like 127.0.0.1:8080"))
    })?;
    let base_url = setting(layers, Key::BaseUrl, &format!("http://{listen}"), parse_base_url)?;
    let mail = mail(layers)?;
    let payments = layers.payments.resolve()?;
    let payment_provider = !matches!(payments, PaymentsConfig::None);
    let settings = Settings { mail_server: mail.smtp.is_some(), payment_provider, ..settings(layers)? };
    Ok(Config {
        listen,
        data_dir: layers.data_dir.clone().unwrap_or_else(|| PathBuf::from("./rental-data")),
        base_url,
        settings,
        sync_interval: setting(layers, Key::SyncInterval, "30m", parse_duration)?,
        webhook_retries: setting(layers, Key::WebhookRetries, "10s,1m,5m,30m,2h,6h,12h,24h", |s| {
            duration::parse_list(s).map_err(|e| e.to_string())
        })?,
        allow_private_targets: setting(layers, Key::AllowPrivateTargets, "false", parse_bool)?,
        rate_limit: setting(layers, Key::RateLimit, "100", parse_rate)?,
        trusted_proxies: setting(layers, Key::TrustedProxies, "", str::parse)?,
        shutdown_grace: setting(layers, Key::ShutdownGrace, "30s", parse_positive)?,
        webhook_lease: setting(layers, Key::WebhookLease, "10s", parse_positive)?,
        database: setting(layers, Key::Database, "", parse_database)?,
        metrics_listen: setting(layers, Key::MetricsListen, "", |s| match s.trim() {
            "" => Ok(None),
            s => s.parse().map(Some).map_err(|_| format!("{s:?} is not an address like 127.0.0.1:9464")),
        })?,
        log_format: setting(layers, Key::LogFormat, "text", |s| match s.trim() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("{other:?} is not a log format (text, json)")),
        })?,
        mail,
        payments,
    })
}

/// `smtp`, `smtpCaFile`, `mailFrom`, `mailRetries` and `mailLease`.
fn mail(layers: &Layers) -> Result<MailSettings, ConfigError> {
    let smtp = setting(layers, Key::Smtp, "", |s| {
        let s = s.trim();
        match s.split_once("://").map(|(scheme, _)| scheme) {
            None if s.is_empty() => Ok(None),
            Some("smtp" | "smtps") => Ok(Some(s.to_owned())),
            // Never echo the URL: it may hold a password.
            _ => Err("must be an smtp:// or smtps:// URL".to_owned()),
        }
    })?;
    let mail_from = setting(layers, Key::MailFrom, "", |s| Ok(s.trim().to_owned()))?;
    if smtp.is_some() && mail_from.is_empty() {
        return Err(ConfigError::Invalid {
            from: "mailFrom".to_owned(),
            message: "is required when smtp is set".to_owned(),
        });
    }
    if !mail_from.is_empty() && rental_server::mail::compose::parse_mailbox(&mail_from).is_err() {
        return Err(invalid(
            layers,
            Key::MailFrom,
            format!("{mail_from:?} is not an address like Sea View <stay@example.com>"),
        ));
    }
    Ok(MailSettings {
        smtp,
        smtp_ca_file: setting(layers, Key::SmtpCaFile, "", |s| {
            Ok(Some(s.trim()).filter(|s| !s.is_empty()).map(PathBuf::from))
        })?,
        mail_from,
        retries: setting(layers, Key::MailRetries, "1m,5m,30m,2h,6h", |s| {
            duration::parse_list(s).map_err(|e| e.to_string())
        })?,
        lease: setting(layers, Key::MailLease, "10s", parse_positive)?,
    })
}

/// `timezone`, `codePrefix`, `checkoutTtl`, `retention` and `syncInterval` as the library's [`Settings`].
fn settings(layers: &Layers) -> Result<Settings, ConfigError> {
    // The zone is read through serde so that this crate needs no time zone
    // crate of its own: its type is named only by `Settings::timezone`.
    let timezone = setting(layers, Key::Timezone, "UTC", |s| {
        Deserialize::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(s.trim()))
            .map_err(|_| format!("{s:?} is not an IANA time zone like Europe/Lisbon"))
    })?;
    let code_prefix = setting(layers, Key::CodePrefix, "BK", |s| {
        rental_core::ids::check_prefix(s).map(|()| s.to_owned()).map_err(|e| e.to_string())
    })?;
    let checkout_ttl = setting(layers, Key::CheckoutTtl, "24h", parse_duration)?
        .map(|d| TimeDelta::from_std(d).map_err(|_| "is too long".to_owned()))
        .transpose()
        .map_err(|message| invalid(layers, Key::CheckoutTtl, message))?;
    let retention = setting(layers, Key::Retention, "30d", parse_duration)?
        .ok_or_else(|| "must be longer than 0".to_owned())
        .and_then(|d| TimeDelta::from_std(d).map_err(|_| "is too long".to_owned()))
        .map_err(|message| invalid(layers, Key::Retention, message))?;
    // Off (`0`) leaves feeds stale by the default interval's measure: a feed
    // pulled only by hand is stale after 90 minutes without a success.
    let sync_interval = setting(layers, Key::SyncInterval, "30m", parse_duration)?
        .and_then(|d| TimeDelta::from_std(d).ok())
        .unwrap_or(TimeDelta::minutes(30));
    let host_email = setting(layers, Key::HostEmail, "", |s| {
        let s = s.trim();
        let shaped = s.is_empty() || (s.contains('@') && !s.chars().any(char::is_whitespace));
        if shaped { Ok(s.to_owned()) } else { Err(format!("{s:?} is not an e-mail address")) }
    })?;
    Ok(Settings {
        code_prefix,
        timezone,
        checkout_ttl,
        retention,
        sync_interval,
        host_email,
        mail_server: true,
        payment_provider: false,
    })
}

/// The setting's value, or its default (written as text, like the contract's table).
fn setting<T>(
    layers: &Layers,
    key: Key,
    default: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, ConfigError> {
    match layers.get(key) {
        Some(given) => parse(&given.text).map_err(|message| invalid(layers, key, message)),
        None => parse(default).map_err(|message| ConfigError::Invalid { from: "default".to_owned(), message }),
    }
}

fn invalid(layers: &Layers, key: Key, message: String) -> ConfigError {
    let from = layers.get(key).map_or_else(|| key.file_name().to_owned(), |g| g.from.clone());
    ConfigError::Invalid { from, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(file: Option<&str>, env: &[(&str, &str)], flags: &Flags) -> Result<Config, ConfigError> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let lookup = move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        Config::from_sources(file.map(|text| (Path::new("conf/rental.toml"), text)), &lookup, flags)
    }

    fn error(file: Option<&str>, env: &[(&str, &str)]) -> String {
        load(file, env, &Flags::default()).unwrap_err().to_string()
    }

    #[test]
    fn defaults_are_those_of_the_contract() {
        let c = load(None, &[], &Flags::default()).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.data_dir, PathBuf::from("./rental-data"));
        assert_eq!(c.base_url, "http://127.0.0.1:8080");
        // No `smtp` by default: messages due at once are skipped as they are made.
        assert_eq!(c.settings, Settings { mail_server: false, ..Settings::default() });
        assert_eq!(c.sync_interval, Some(Duration::from_secs(1_800)));
        assert_eq!(c.webhook_retries.len(), 8);
        assert_eq!(c.webhook_retries[7], Duration::from_secs(86_400));
        assert!(!c.allow_private_targets);
        assert_eq!(c.rate_limit, Some(100));
        assert!(c.trusted_proxies.is_empty());
    }

    #[test]
    fn trusted_proxies_come_from_the_file_the_environment_or_the_flag() {
        let file = "trustedProxies = [\"10.0.0.0/8\", \"::1\"]";
        let c = load(Some(file), &[], &Flags::default()).unwrap();
        assert_eq!(c.trusted_proxies.to_string(), "10.0.0.0/8,::1/128");
        let c = load(Some("trustedProxies = \"192.168.1.5\""), &[], &Flags::default()).unwrap();
        assert_eq!(c.trusted_proxies.to_string(), "192.168.1.5/32");
        let c = load(Some(file), &[("RENTAL_TRUSTED_PROXIES", "172.16.0.0/12")], &Flags::default()).unwrap();
        assert_eq!(c.trusted_proxies.to_string(), "172.16.0.0/12");
        let flags = Flags { trusted_proxies: Some("127.0.0.1".into()), ..Flags::default() };
        let c = load(Some(file), &[("RENTAL_TRUSTED_PROXIES", "172.16.0.0/12")], &flags).unwrap();
        assert_eq!(c.trusted_proxies.to_string(), "127.0.0.1/32");
        let got = error(None, &[("RENTAL_TRUSTED_PROXIES", "10.0.0.0/40")]);
        assert!(got.starts_with(r#"RENTAL_TRUSTED_PROXIES: "10.0.0.0/40" is not an IP address"#), "{got}");
        let got = error(Some("trustedProxies = 5"), &[]);
        assert!(got.starts_with("conf/rental.toml: trustedProxies: 5 is not a list"), "{got}");
    }

    #[test]
    fn the_listen_flag_and_rate_limit_override_the_file() {
        let flags = Flags { listen: Some("127.0.0.1:0".into()), ..Flags::default() };
        let c = load(Some("listen = \"0.0.0.0:9000\"\nrateLimit = 0"), &[], &flags).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:0");
        assert_eq!(c.rate_limit, None);
        assert!(error(None, &[("RENTAL_RATE_LIMIT", "fast")]).contains("RENTAL_RATE_LIMIT"));
    }

    #[test]
    fn the_file_sets_every_key() {
        let file = r#"
            listen = "0.0.0.0:9000"
            dataDir = "data"
            timezone = "Europe/Lisbon"
            codePrefix = "SV"
            syncInterval = "5m"
            checkoutTtl = 0
            webhookRetries = ["1s", "2s"]
            allowPrivateTargets = true
        "#;
        let c = load(Some(file), &[], &Flags::default()).unwrap();
        assert_eq!(c.listen.to_string(), "0.0.0.0:9000");
        assert_eq!(c.base_url, "http://0.0.0.0:9000");
        assert_eq!(c.data_dir, PathBuf::from("conf/data"), "relative to the file");
        assert_eq!(c.settings.timezone.to_string(), "Europe/Lisbon");
        assert_eq!(c.settings.code_prefix, "SV");
        assert_eq!(c.settings.checkout_ttl, None);
        assert_eq!(c.sync_interval, Some(Duration::from_secs(300)));
        assert_eq!(c.webhook_retries, vec![Duration::from_secs(1), Duration::from_secs(2)]);
        assert!(c.allow_private_targets);
    }

    #[test]
    fn the_environment_overrides_the_file_and_flags_override_both() {
        let file = "dataDir = \"file-dir\"\ncheckoutTtl = \"1h\"\ntimezone = \"Europe/Lisbon\"";
        let env = [("RENTAL_DATA_DIR", "env-dir"), ("RENTAL_CHECKOUT_TTL", "90s"), ("RENTAL_TIMEZONE", "")];
        let flags = Flags { data_dir: Some(PathBuf::from("flag-dir")), ..Flags::default() };
        let c = load(Some(file), &env, &flags).unwrap();
        assert_eq!(c.data_dir, PathBuf::from("flag-dir"));
        assert_eq!(c.settings.checkout_ttl, Some(TimeDelta::seconds(90)));
        assert_eq!(c.settings.timezone.to_string(), "Europe/Lisbon", "an empty variable is unset");
        let c = load(Some(file), &env, &Flags::default()).unwrap();
        assert_eq!(c.data_dir, PathBuf::from("env-dir"));
    }

    #[test]
    fn the_database_is_redb_unless_a_postgres_url_is_given_by_file_environment_or_flag() {
        assert_eq!(load(None, &[], &Flags::default()).unwrap().database, None);
        let file = "database = \"postgres://rental@db/rental\"";
        let c = load(Some(file), &[], &Flags::default()).unwrap();
        assert_eq!(c.database.as_deref(), Some("postgres://rental@db/rental"));
        let env = [("RENTAL_DATABASE_URL", "postgresql://other/rental")];
        assert_eq!(
            load(Some(file), &env, &Flags::default()).unwrap().database.as_deref(),
            Some("postgresql://other/rental")
        );
        let flags = Flags { database: Some("postgres://flag/rental".into()), ..Flags::default() };
        assert_eq!(load(Some(file), &env, &flags).unwrap().database.as_deref(), Some("postgres://flag/rental"));
        let got = error(None, &[("RENTAL_DATABASE_URL", "mysql://db/rental")]);
        assert!(got.starts_with("RENTAL_DATABASE_URL: must be a postgres:// or postgresql:// URL"), "{got}");
    }

    #[test]
    fn retention_is_thirty_days_unless_set() {
        assert_eq!(load(None, &[], &Flags::default()).unwrap().settings.retention, TimeDelta::days(30));
        let c = load(Some("retention = \"7d\""), &[], &Flags::default()).unwrap();
        assert_eq!(c.settings.retention, TimeDelta::days(7));
        let c = load(Some("retention = \"7d\""), &[("RENTAL_RETENTION", "36h")], &Flags::default()).unwrap();
        assert_eq!(c.settings.retention, TimeDelta::hours(36));
    }

    #[test]
    fn the_shutdown_grace_and_the_webhook_lease_have_defaults_and_cannot_be_off() {
        let c = load(None, &[], &Flags::default()).unwrap();
        assert_eq!((c.shutdown_grace, c.webhook_lease), (Duration::from_secs(30), Duration::from_secs(10)));
        let file = "shutdownGrace = \"10s\"\nwebhookLease = \"2m\"";
        let c = load(Some(file), &[("RENTAL_SHUTDOWN_GRACE", "2s")], &Flags::default()).unwrap();
        assert_eq!((c.shutdown_grace, c.webhook_lease), (Duration::from_secs(2), Duration::from_secs(120)));
        assert!(load(None, &[("RENTAL_WEBHOOK_LEASE", "0")], &Flags::default()).is_err());
        assert!(load(None, &[("RENTAL_SHUTDOWN_GRACE", "0")], &Flags::default()).is_err());
    }

    #[test]
    fn bad_values_name_where_they_came_from() {
        let cases = [
            (Some("checkoutTtl = \"soon\""), vec![], r#"conf/rental.toml: checkoutTtl: "soon" is not a duration"#),
            (None, vec![("RENTAL_TIMEZONE", "Mars/Olympus")], r#"RENTAL_TIMEZONE: "Mars/Olympus" is not an IANA"#),
            (None, vec![("RENTAL_CODE_PREFIX", "bk")], r#"RENTAL_CODE_PREFIX: "bk" is not a valid code prefix"#),
            (None, vec![("RENTAL_LISTEN", "localhost")], r#"RENTAL_LISTEN: "localhost" is not an address"#),
            (None, vec![("RENTAL_BASE_URL", "ftp://x")], r#"RENTAL_BASE_URL: "ftp://x" is not an http"#),
            (None, vec![("RENTAL_ALLOW_PRIVATE_TARGETS", "maybe")], r#"RENTAL_ALLOW_PRIVATE_TARGETS: "maybe" is not"#),
            (None, vec![("RENTAL_WEBHOOK_RETRIES", "10s,x")], r#"RENTAL_WEBHOOK_RETRIES: "x" is not a duration"#),
            (Some("syncInterval = 5"), vec![], "conf/rental.toml: syncInterval: 5 is not a duration"),
            (None, vec![("RENTAL_RETENTION", "0")], "RENTAL_RETENTION: must be longer than 0"),
        ];
        for (file, env, want) in cases {
            let got = error(file, &env);
            assert!(got.starts_with(want), "{got}");
        }
    }

    #[test]
    fn unknown_keys_are_refused_with_their_line() {
        let got = error(Some("timezone = \"UTC\"\ncheckout_ttl = \"1h\"\n"), &[]);
        assert!(
            got.starts_with("config file conf/rental.toml: line 2, column 1: unknown field `checkout_ttl`"),
            "{got}"
        );
        assert!(!got.contains('\n'), "{got}");
    }
}
