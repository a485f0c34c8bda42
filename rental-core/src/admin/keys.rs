//! API keys: `rk_` + 32 base62 characters, shown once; only the SHA-256
//! hash is kept. Scopes are `read`, `write`, `metrics` and `backup`; none implies another.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::basics::clock::{BASE62, Entropy, random_string};

/// A stored API key (the secret itself is never stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    /// `key_` + 12 characters; not secret.
    pub id: String,
    /// A name for people.
    pub name: String,
    /// What the key may do.
    pub scopes: Vec<Scope>,
    /// When it was made.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
    /// When it last authenticated a request (kept to the minute).
    #[serde(with = "crate::basics::timestamp::option")]
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it was revoked; a revoked key authenticates nothing.
    #[serde(with = "crate::basics::timestamp::option")]
    pub revoked_at: Option<DateTime<Utc>>,
}

impl ApiKey {
    /// True when the key has `scope` and is not revoked.
    pub fn allows(&self, scope: Scope) -> bool {
        self.revoked_at.is_none() && self.scopes.contains(&scope)
    }
}

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Read endpoints and the occupancy summary.
    Read,
    /// Creating and changing bookings, triggering a sync.
    Write,
    /// Scraping `GET /metrics` and nothing else: what a Prometheus server holds.
    Metrics,
    /// Taking a backup of the whole store through the server (`rental backup --url`).
    Backup,
    /// Reading guests' identity documents given on the check-in form
    /// (`documentNumber`), beside `read` (docs/API.md section 24).
    Guests,
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "read" => Ok(Scope::Read),
            "write" => Ok(Scope::Write),
            "metrics" => Ok(Scope::Metrics),
            "backup" => Ok(Scope::Backup),
            "guests" => Ok(Scope::Guests),
            other => Err(format!("{other:?} is not a scope (read, write, metrics, backup, guests)")),
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scope::Read => "read",
            Scope::Write => "write",
            Scope::Metrics => "metrics",
            Scope::Backup => "backup",
            Scope::Guests => "guests",
        })
    }
}

/// A new secret: `rk_` + 32 base62 characters.
pub(crate) fn new_secret(entropy: &dyn Entropy) -> String {
    format!("rk_{}", random_string(entropy, BASE62, 32))
}

/// A new public id with `prefix` (`key_`, `wh_`, `blk_`) + 12 base62 characters.
pub(crate) fn new_id(prefix: &str, entropy: &dyn Entropy) -> String {
    format!("{prefix}{}", random_string(entropy, BASE62, 12))
}

/// The hex SHA-256 of a secret, as stored and looked up.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(digest(secret))
}

/// The SHA-256 of a secret, as the in-memory key cache looks it up.
pub(crate) fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// True when `s` has the shape of a key secret (so malformed bearer values are refused without a lookup).
pub fn looks_like_secret(s: &str) -> bool {
    s.len() == 35 && s.starts_with("rk_") && s[3..].bytes().all(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::clock::OsEntropy;

    #[test]
    fn secrets_have_the_contract_shape_and_hash_to_64_hex() {
        let s = new_secret(&OsEntropy);
        assert!(looks_like_secret(&s), "{s}");
        assert_eq!(hash_secret(&s).len(), 64);
        assert_ne!(new_secret(&OsEntropy), s);
        assert!(!looks_like_secret("rk_short"));
        assert!(new_id("key_", &OsEntropy).starts_with("key_"));
    }

    #[test]
    fn scopes_are_separate_and_revocation_removes_both() {
        let key = ApiKey {
            id: "key_abc".into(),
            name: "site".into(),
            scopes: vec![Scope::Read],
            created_at: "2026-11-22T00:00:00Z".parse().unwrap(),
            last_used_at: None,
            revoked_at: None,
        };
        assert!(key.allows(Scope::Read) && !key.allows(Scope::Write));
        let revoked = ApiKey { revoked_at: Some(key.created_at), ..key };
        assert!(!revoked.allows(Scope::Read));
    }
}
