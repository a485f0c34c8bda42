//! The settings' names: each setting's key in rental.toml and its `RENTAL_*`
//! environment variable (docs/API.md section 11).

/// The settings other than `dataDir`, which is a path and needs no parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    Listen,
    BaseUrl,
    Timezone,
    CodePrefix,
    SyncInterval,
    CheckoutTtl,
    WebhookRetries,
    AllowPrivateTargets,
    RateLimit,
    Retention,
    TrustedProxies,
    ShutdownGrace,
    WebhookLease,
    Database,
    MetricsListen,
    LogFormat,
    Smtp,
    SmtpCaFile,
    MailFrom,
    HostEmail,
    MailRetries,
    MailLease,
}

impl Key {
    pub(super) const ALL: [Key; 22] = [
        Key::Listen,
        Key::BaseUrl,
        Key::Timezone,
        Key::CodePrefix,
        Key::SyncInterval,
        Key::CheckoutTtl,
        Key::WebhookRetries,
        Key::AllowPrivateTargets,
        Key::RateLimit,
        Key::Retention,
        Key::TrustedProxies,
        Key::ShutdownGrace,
        Key::WebhookLease,
        Key::Database,
        Key::MetricsListen,
        Key::LogFormat,
        Key::Smtp,
        Key::SmtpCaFile,
        Key::MailFrom,
        Key::HostEmail,
        Key::MailRetries,
        Key::MailLease,
    ];

    pub(super) fn file_name(self) -> &'static str {
        match self {
            Key::Listen => "listen",
            Key::BaseUrl => "baseUrl",
            Key::Timezone => "timezone",
            Key::CodePrefix => "codePrefix",
            Key::SyncInterval => "syncInterval",
            Key::CheckoutTtl => "checkoutTtl",
            Key::WebhookRetries => "webhookRetries",
            Key::AllowPrivateTargets => "allowPrivateTargets",
            Key::RateLimit => "rateLimit",
            Key::Retention => "retention",
            Key::TrustedProxies => "trustedProxies",
            Key::ShutdownGrace => "shutdownGrace",
            Key::WebhookLease => "webhookLease",
            Key::Database => "database",
            Key::MetricsListen => "metricsListen",
            Key::LogFormat => "logFormat",
            Key::Smtp => "smtp",
            Key::SmtpCaFile => "smtpCaFile",
            Key::MailFrom => "mailFrom",
            Key::HostEmail => "hostEmail",
            Key::MailRetries => "mailRetries",
            Key::MailLease => "mailLease",
        }
    }

    pub(super) fn env_name(self) -> &'static str {
        match self {
            Key::Listen => "RENTAL_LISTEN",
            Key::BaseUrl => "RENTAL_BASE_URL",
            Key::Timezone => "RENTAL_TIMEZONE",
            Key::CodePrefix => "RENTAL_CODE_PREFIX",
            Key::SyncInterval => "RENTAL_SYNC_INTERVAL",
            Key::CheckoutTtl => "RENTAL_CHECKOUT_TTL",
            Key::WebhookRetries => "RENTAL_WEBHOOK_RETRIES",
            Key::AllowPrivateTargets => "RENTAL_ALLOW_PRIVATE_TARGETS",
            Key::RateLimit => "RENTAL_RATE_LIMIT",
            Key::Retention => "RENTAL_RETENTION",
            Key::TrustedProxies => "RENTAL_TRUSTED_PROXIES",
            Key::ShutdownGrace => "RENTAL_SHUTDOWN_GRACE",
            Key::WebhookLease => "RENTAL_WEBHOOK_LEASE",
            Key::Database => "RENTAL_DATABASE_URL",
            Key::MetricsListen => "RENTAL_METRICS_LISTEN",
            Key::LogFormat => "RENTAL_LOG_FORMAT",
            Key::Smtp => "RENTAL_SMTP_URL",
            Key::SmtpCaFile => "RENTAL_SMTP_CA_FILE",
            Key::MailFrom => "RENTAL_MAIL_FROM",
            Key::HostEmail => "RENTAL_HOST_EMAIL",
            Key::MailRetries => "RENTAL_MAIL_RETRIES",
            Key::MailLease => "RENTAL_MAIL_LEASE",
        }
    }
}
