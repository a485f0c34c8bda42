//! Logins sent at once: each attempt is counted before its password is
//! checked, password checks run a few at a time, and memory stays bounded.

use std::sync::Arc;

use rental_core::MemoryStore;
use rental_server::ServerConfig;
use rental_server::admin::AdminConfig;
use rental_tests::http::TestServer;

use crate::client::{Client, PASSWORD, config, server};

/// The resident memory of this process (the test and its in-process server), in MiB.
fn rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("kB") / 1024
}

/// Sends `n` wrong passwords at once, each from `client(i)`, and gives their statuses.
async fn burst(n: usize, client: impl Fn(usize) -> Client) -> Vec<u16> {
    let clients: Vec<Arc<Client>> = (0..n).map(|i| Arc::new(client(i))).collect();
    // Each fetches its login form first, so that the posts themselves go out together.
    let mut tokens = Vec::new();
    for c in &clients {
        let form = c.get("/admin/login").await;
        tokens.push(crate::client::hidden_csrf(&form.text()).expect("a token"));
    }
    let posts = clients.iter().zip(tokens).map(|(c, token)| {
        let c = Arc::clone(c);
        tokio::spawn(async move {
            c.post_raw("/admin/login", &[("_csrf", &token), ("password", "not the password")]).await.status
        })
    });
    let mut statuses = Vec::new();
    for post in posts.collect::<Vec<_>>() {
        statuses.push(post.await.expect("a post"));
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_wrong_passwords_at_once_from_one_address_check_at_most_five() {
    let s = server().await;
    let statuses = burst(50, |_| Client::new(&s.http)).await;
    let checked = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(checked + refused, 50, "{statuses:?}");
    assert!(checked <= 5, "only the free attempts are checked: {statuses:?}");
    // The address waits now, even with the right password.
    Client::new(&s.http).login(PASSWORD).await.expect(429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_passwords_at_once_from_many_addresses_are_checked_a_few_at_a_time_in_bounded_memory() {
    let trusted_proxies = "127.0.0.0/8, ::1".parse().expect("a valid list");
    let config = ServerConfig { trusted_proxies, ..config(AdminConfig::default()) };
    let s: TestServer<MemoryStore> = TestServer::with_config(&config).await;
    s.rental.admin().set_admin_password(PASSWORD).expect("the password is set");
    let before = rss_mib();
    let statuses = burst(60, |i| Client::behind_proxy(&s.http, &format!("198.51.100.{i}"))).await;
    let grew = rss_mib().saturating_sub(before);
    let checked = statuses.iter().filter(|s| **s == 401).count();
    let busy = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(checked + busy, 60, "a check is made or the client is told to come back: {statuses:?}");
    assert!(checked >= 2, "{statuses:?}");
    // One check takes about 19 MiB: 60 at once took over 1 GiB; a few at a time
    // take tens (the bound leaves room for the other tests running in this process).
    assert!(grew < 500, "the process grew by {grew} MiB");
    Client::behind_proxy(&s.http, "198.51.100.250").login(PASSWORD).await.expect(303);
}
