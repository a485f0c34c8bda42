//! A real stateful Stripe stand-in for the payment tests: the `PyPI` package `localstripe`
//! (pinned in scripts/test-requirements.txt) on a free port of 127.0.0.1, one per test.
//!
//! [`LocalStripe::save_card`] and [`LocalStripe::authenticate`] do what its fake Stripe.js
//! does in a guest's browser (confirm a `SetupIntent` with a card, answer 3-D Secure), so the
//! API tests need no browser; [`LocalStripe::register_webhook`] points its events at a server.

use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http::Method;
use rental_server::payments::StripeConfig;
use serde_json::{Value, json};

use crate::http::{Http, Reply};

/// The secret key the tests configure (localstripe takes any `sk_test_…`).
pub const SECRET_KEY: &str = "sk_test_rental_secret_4f1c";
/// The publishable key the tests configure.
pub const PUBLISHABLE_KEY: &str = "pk_test_rental";
/// The webhook secret the tests configure and register.
pub const WEBHOOK_SECRET: &str = "whsec_rental_secret_9b2e";

/// Test cards (docs/API.md section 23).
pub mod cards {
    /// Succeeds.
    pub const OK: &str = "4242424242424242";
    /// Declined when saved.
    pub const DECLINED: &str = "4000000000000002";
    /// Saved, but every charge is declined.
    pub const CHARGE_DECLINED: &str = "4000000000000341";
    /// Needs 3-D Secure on the page; refused off-session.
    pub const THREE_D_SECURE: &str = "4000002500003155";
}

// localstripe writes a pickle of its whole store to the fixed path /tmp/localstripe.pickle on
// every change, and reads it at start: tests running at once would share it. This starts its
// server with that turned off, so each test's stand-in holds only its own objects in memory.
const START: &str = "import localstripe.resources as r\n\
r.Store.dump_to_disk = lambda self: None\n\
from localstripe.server import start\n\
start()";

/// A running localstripe, stopped when dropped.
#[derive(Debug)]
pub struct LocalStripe {
    child: Child,
    /// Its address.
    pub addr: SocketAddr,
}

impl LocalStripe {
    /// Starts one; `None` (after [`crate::tools::missing`]) when localstripe is not installed.
    pub fn start() -> Option<LocalStripe> {
        if !crate::tools::python_modules("localstripe") {
            return None;
        }
        let port = crate::ports::free_port();
        let child = Command::new("python3")
            .args(["-c", START, "--port", &port.to_string(), "--from-scratch"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 starts localstripe");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(Instant::now() < until, "localstripe did not listen on {addr} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(LocalStripe { child, addr })
    }

    /// Its API's base URL (`apiBase`).
    pub fn api_base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Its fake Stripe.js (`jsUrl`).
    pub fn js_url(&self) -> String {
        format!("http://{}/js.stripe.com/v3/", self.addr)
    }

    /// The server's Stripe settings for it, with the test keys.
    pub fn config(&self) -> StripeConfig {
        let mut config = StripeConfig::new(SECRET_KEY, PUBLISHABLE_KEY, WEBHOOK_SECRET);
        config.api_base = self.api_base();
        config.js_url = self.js_url();
        config
    }

    fn http(&self) -> Http {
        Http::new(self.addr)
    }

    /// Sends its events to `url`, signed with [`WEBHOOK_SECRET`] (`POST /_config/webhooks/{id}`).
    pub async fn register_webhook(&self, url: &str) {
        let body = json!({"url": url, "secret": WEBHOOK_SECRET});
        self.http().post("/_config/webhooks/rental", "", &body).await.expect(200);
    }

    /// What Stripe.js's `confirmCardSetup` sends for `card`: the `SetupIntent` of `client_secret`
    /// confirmed with the card's details. The answer (a 402 for a declined card).
    pub async fn save_card(&self, client_secret: &str, card: &str) -> Reply {
        let id = client_secret.split("_secret_").next().expect("a setup intent's client secret");
        let body = json!({
            "key": PUBLISHABLE_KEY,
            "use_stripe_sdk": true,
            "client_secret": client_secret,
            "payment_method_data": {"type": "card", "card": {"number": card, "exp_month": "12", "exp_year": "2030", "cvc": "123"}},
        });
        let reply = self.http().post(&format!("/v1/setup_intents/{id}/confirm"), "", &body).await;
        if reply.status == 200 && reply.body["status"] == "requires_action" {
            // The fake Stripe.js's 3-D Secure dialog, answered "complete": confirm again.
            let again = json!({"key": PUBLISHABLE_KEY, "use_stripe_sdk": true, "client_secret": client_secret});
            return self.http().post(&format!("/v1/setup_intents/{id}/confirm"), "", &again).await;
        }
        reply
    }

    /// What Stripe.js's `confirmCardPayment` does on a payment that `requires_action`: the
    /// guest completes (`success`) or fails 3-D Secure.
    pub async fn authenticate(&self, client_secret: &str, success: bool) -> Reply {
        let id = client_secret.split("_secret_").next().expect("a payment intent's client secret");
        let body = json!({"key": PUBLISHABLE_KEY, "client_secret": client_secret});
        let path = format!("/v1/payment_intents/{id}/_authenticate?success={success}");
        self.http().send_json(Method::POST, &path, "", &body).await
    }

    /// An object as the provider has it, read with the secret key (`/v1/payment_intents/pi_…`).
    pub async fn get(&self, path: &str) -> Value {
        let reply = self.http().get(path, SECRET_KEY).await;
        reply.expect(200);
        reply.body
    }
}

impl Drop for LocalStripe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
