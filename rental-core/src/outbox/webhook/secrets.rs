//! A webhook's signing secrets: the current one and those retired by a
//! rotation, each still signing for [`OVERLAP`] after it was replaced.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// How long a replaced secret keeps signing deliveries beside the new one.
pub const OVERLAP: TimeDelta = TimeDelta::hours(24);

/// One signing secret of a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    /// The secret as given to the receiver.
    pub value: String,
    /// When it was added.
    #[serde(with = "crate::basics::timestamp")]
    pub created_at: DateTime<Utc>,
    /// When a rotation replaced it; `None` for the current secret.
    #[serde(default, with = "crate::basics::timestamp::option", skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<DateTime<Utc>>,
}

impl Secret {
    /// True while it signs deliveries: current, or replaced less than [`OVERLAP`] before `now`.
    pub fn is_active(&self, now: DateTime<Utc>) -> bool {
        self.retired_at.is_none_or(|retired| now < retired + OVERLAP)
    }
}

/// A webhook's secrets, oldest first; the last one is current. Never empty.
///
/// ```
/// use chrono::TimeDelta;
/// use rental_core::webhook::Secrets;
///
/// let t0 = "2026-11-22T07:00:00Z".parse().unwrap();
/// let mut secrets = Secrets::new("whsec_Zmlyc3Q=".into(), t0);
/// secrets.rotate("whsec_c2Vjb25k".into(), t0);
/// assert_eq!(secrets.current(), "whsec_c2Vjb25k");
/// assert_eq!(secrets.active(t0 + TimeDelta::hours(23)), ["whsec_c2Vjb25k", "whsec_Zmlyc3Q="]);
/// assert_eq!(secrets.active(t0 + TimeDelta::hours(24)), ["whsec_c2Vjb25k"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Secrets(Vec<Secret>);

impl Secrets {
    /// One current secret, added at `at`.
    pub fn new(value: String, at: DateTime<Utc>) -> Self {
        Secrets(vec![Secret { value, created_at: at, retired_at: None }])
    }

    /// The newest secret: it signs `X-SVC-Signature` and is the first `webhook-signature`.
    pub fn current(&self) -> &str {
        self.0.last().map_or("", |s| s.value.as_str())
    }

    /// Every secret kept, oldest first.
    pub fn all(&self) -> &[Secret] {
        &self.0
    }

    /// The secrets that sign a delivery made at `now`, newest first.
    pub fn active(&self, now: DateTime<Utc>) -> Vec<&str> {
        self.0.iter().rev().filter(|s| s.is_active(now)).map(|s| s.value.as_str()).collect()
    }

    /// When the newest replaced secret that still signs stops signing, if there is one.
    pub fn overlap_ends(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.0.iter().filter(|s| s.is_active(now)).filter_map(|s| s.retired_at).max().map(|at| at + OVERLAP)
    }

    /// True when `value` is one of the secrets kept.
    pub fn contains(&self, value: &str) -> bool {
        self.0.iter().any(|s| s.value == value)
    }

    /// Makes `value` current at `now`: the current secret is retired and keeps
    /// signing for [`OVERLAP`]; secrets whose overlap is over are dropped.
    pub fn rotate(&mut self, value: String, now: DateTime<Utc>) {
        for secret in self.0.iter_mut().filter(|s| s.retired_at.is_none()) {
            secret.retired_at = Some(now);
        }
        self.0.push(Secret { value, created_at: now, retired_at: None });
        self.drop_expired(now);
    }

    /// Drops the retired secrets that no longer sign at `now`; true when any was dropped.
    pub fn drop_expired(&mut self, now: DateTime<Utc>) -> bool {
        let before = self.0.len();
        self.0.retain(|s| s.is_active(now));
        self.0.len() != before
    }
}

impl<'de> Deserialize<'de> for Secrets {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let secrets = Vec::<Secret>::deserialize(deserializer)?;
        if secrets.is_empty() {
            return Err(serde::de::Error::custom("a webhook needs at least one secret"));
        }
        Ok(Secrets(secrets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_replaced_secret_signs_for_24_hours_and_is_dropped_at_the_next_rotation_after() {
        let t0 = at("2026-11-22T07:00:00Z");
        let mut secrets = Secrets::new("a-secret".into(), t0 - TimeDelta::days(30));
        secrets.rotate("b-secret".into(), t0);
        let cases = [
            (t0, vec!["b-secret", "a-secret"]),
            (t0 + OVERLAP - TimeDelta::milliseconds(1), vec!["b-secret", "a-secret"]),
            (t0 + OVERLAP, vec!["b-secret"]),
        ];
        for (now, want) in cases {
            assert_eq!(secrets.active(now), want, "{now}");
        }
        assert_eq!(secrets.overlap_ends(t0), Some(t0 + OVERLAP));
        assert_eq!(secrets.overlap_ends(t0 + OVERLAP), None);

        let t1 = t0 + TimeDelta::hours(2);
        secrets.rotate("c-secret".into(), t1);
        assert_eq!(secrets.active(t1), ["c-secret", "b-secret", "a-secret"], "two rotations in a day: three sign");
        assert_eq!(secrets.overlap_ends(t1), Some(t1 + OVERLAP));
        assert_eq!(secrets.active(t0 + OVERLAP), ["c-secret", "b-secret"]);

        secrets.rotate("d-secret".into(), t1 + OVERLAP);
        let kept: Vec<&str> = secrets.all().iter().map(|s| s.value.as_str()).collect();
        assert_eq!(kept, ["c-secret", "d-secret"], "the rotation dropped a and b, whose overlap was over");
        assert!(!secrets.drop_expired(t1 + OVERLAP));
    }

    #[test]
    fn stored_secrets_read_back_and_an_empty_list_is_refused() {
        let mut secrets = Secrets::new("a-secret".into(), at("2026-11-01T00:00:00Z"));
        secrets.rotate("b-secret".into(), at("2026-11-22T07:39:21.123Z"));
        let json = serde_json::to_string(&secrets).unwrap();
        assert!(json.contains(r#""retiredAt":"2026-11-22T07:39:21.123Z""#), "{json}");
        assert_eq!(serde_json::from_str::<Secrets>(&json).unwrap(), secrets);
        assert!(serde_json::from_str::<Secrets>("[]").is_err());
    }
}
