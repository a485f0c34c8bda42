//! The `[payments]` settings (docs/API.md section 23): the provider and Stripe's keys, from
//! rental.toml's `[payments]` table, overridden by `RENTAL_PAYMENTS_PROVIDER` and `RENTAL_STRIPE_*`.

use rental_server::payments::{PaymentsConfig, STRIPE_API_BASE, STRIPE_JS_URL, StripeConfig};
use serde::Deserialize;

use crate::config::ConfigError;

/// `[payments]` as written: camelCase keys, nothing unknown.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PaymentsFile {
    provider: Option<String>,
    secret_key: Option<String>,
    publishable_key: Option<String>,
    webhook_secret: Option<String>,
    api_base: Option<String>,
    js_url: Option<String>,
}

/// Each setting: its file key and environment variable.
const KEYS: [(&str, &str); 6] = [
    ("provider", "RENTAL_PAYMENTS_PROVIDER"),
    ("secretKey", "RENTAL_STRIPE_SECRET_KEY"),
    ("publishableKey", "RENTAL_STRIPE_PUBLISHABLE_KEY"),
    ("webhookSecret", "RENTAL_STRIPE_WEBHOOK_SECRET"),
    ("apiBase", "RENTAL_STRIPE_API_BASE"),
    ("jsUrl", "RENTAL_STRIPE_JS_URL"),
];

/// The settings as given, each with where it came from (for errors: never the value itself,
/// which may be a secret).
#[derive(Debug, Default)]
pub(crate) struct PaymentsLayers {
    values: [Option<(String, String)>; 6],
}

impl PaymentsLayers {
    /// The file's `[payments]` table.
    pub(crate) fn apply_file(&mut self, file: PaymentsFile, path: &str) {
        let texts =
            [file.provider, file.secret_key, file.publishable_key, file.webhook_secret, file.api_base, file.js_url];
        for (i, text) in texts.into_iter().enumerate() {
            if let Some(text) = text {
                self.values[i] = Some((text, format!("{path}: payments.{}", KEYS[i].0)));
            }
        }
    }

    /// The environment, over the file.
    pub(crate) fn apply_env(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        for (i, (_, name)) in KEYS.iter().enumerate() {
            if let Some(text) = env(name).filter(|v| !v.trim().is_empty()) {
                self.values[i] = Some((text, (*name).to_owned()));
            }
        }
    }

    fn get(&self, i: usize) -> Option<(&str, &str)> {
        self.values[i].as_ref().map(|(text, from)| (text.trim(), from.as_str()))
    }

    /// The settings, checked: with `provider = "stripe"`, the secret key, publishable key and
    /// webhook secret are required, and the URLs must be http(s).
    pub(crate) fn resolve(&self) -> Result<PaymentsConfig, ConfigError> {
        let invalid =
            |from: &str, message: &str| ConfigError::Invalid { from: from.to_owned(), message: message.to_owned() };
        match self.get(0) {
            None | Some(("none", _)) => return Ok(PaymentsConfig::None),
            Some(("stripe", _)) => {}
            Some((_, from)) => return Err(invalid(from, "must be stripe or none")),
        }
        let required = |i: usize| {
            self.get(i).map(|(text, _)| text.to_owned()).filter(|t| !t.is_empty()).ok_or_else(|| {
                invalid(&format!("payments.{}", KEYS[i].0), "is required when the payments provider is stripe")
            })
        };
        let url = |i: usize, default: &str| match self.get(i) {
            None => Ok(default.to_owned()),
            Some((text, _)) if text.starts_with("https://") || text.starts_with("http://") => Ok(text.to_owned()),
            Some((_, from)) => Err(invalid(from, "must be an http:// or https:// URL")),
        };
        let mut stripe = StripeConfig::new(&required(1)?, &required(2)?, &required(3)?);
        url(4, STRIPE_API_BASE)?.trim_end_matches('/').clone_into(&mut stripe.api_base);
        stripe.js_url = url(5, STRIPE_JS_URL)?;
        Ok(PaymentsConfig::Stripe(stripe))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(file: &str, env: &[(&str, &str)]) -> Result<PaymentsConfig, ConfigError> {
        let mut layers = PaymentsLayers::default();
        layers.apply_file(toml::from_str(file).expect("a [payments] table"), "rental.toml");
        let lookup = |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned());
        layers.apply_env(&lookup);
        layers.resolve()
    }

    const STRIPE: &str = r#"
        provider = "stripe"
        secretKey = "sk_test_file"
        publishableKey = "pk_test_file"
        webhookSecret = "whsec_file"
    "#;

    #[test]
    fn no_provider_is_the_default_and_none_says_so() {
        assert_eq!(resolve("", &[]).unwrap(), PaymentsConfig::None);
        assert_eq!(resolve(r#"provider = "none""#, &[]).unwrap(), PaymentsConfig::None);
    }

    #[test]
    fn stripe_takes_its_keys_from_the_file_and_the_environment_over_it() {
        let PaymentsConfig::Stripe(config) = resolve(STRIPE, &[]).unwrap() else { panic!("stripe") };
        assert_eq!(config.secret_key.expose(), "sk_test_file");
        assert_eq!((config.api_base.as_str(), config.js_url.as_str()), (STRIPE_API_BASE, STRIPE_JS_URL));
        let env = [("RENTAL_STRIPE_SECRET_KEY", "sk_test_env"), ("RENTAL_STRIPE_API_BASE", "http://127.0.0.1:8420/")];
        let PaymentsConfig::Stripe(config) = resolve(STRIPE, &env).unwrap() else { panic!("stripe") };
        assert_eq!((config.secret_key.expose(), config.api_base.as_str()), ("sk_test_env", "http://127.0.0.1:8420"));
        let only_env = [
            ("RENTAL_PAYMENTS_PROVIDER", "stripe"),
            ("RENTAL_STRIPE_SECRET_KEY", "sk_test_env"),
            ("RENTAL_STRIPE_PUBLISHABLE_KEY", "pk_test_env"),
            ("RENTAL_STRIPE_WEBHOOK_SECRET", "whsec_env"),
        ];
        assert!(matches!(resolve("", &only_env).unwrap(), PaymentsConfig::Stripe(_)));
    }

    #[test]
    fn bad_settings_name_the_setting_and_never_echo_a_secret() {
        let cases = [
            (r#"provider = "paypal""#, "rental.toml: payments.provider: must be stripe or none"),
            (
                r#"provider = "stripe"
                   secretKey = "sk_test_secret""#,
                "payments.publishableKey: is required when the payments provider is stripe",
            ),
            (
                &format!("{STRIPE}\napiBase = \"ftp://sk_test_file\""),
                "rental.toml: payments.apiBase: must be an http:// or https:// URL",
            ),
        ];
        for (file, message) in cases {
            let error = resolve(file, &[]).unwrap_err().to_string();
            assert_eq!(error, message);
            assert!(!error.contains("sk_test"), "{error}");
        }
    }

    #[test]
    fn the_debug_form_of_the_settings_hides_both_secrets() {
        let config = resolve(STRIPE, &[]).unwrap();
        let debug = format!("{config:?}");
        assert!(debug.contains("pk_test_file"), "{debug}");
        assert!(!debug.contains("sk_test_file") && !debug.contains("whsec_file"), "{debug}");
    }
}
