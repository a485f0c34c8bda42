//! The login throttle behind a reverse proxy: `X-Forwarded-For` names the
//! client only when the TCP peer is a trusted proxy (`trustedProxies`).

use rental_core::MemoryStore;
use rental_server::ServerConfig;
use rental_server::admin::AdminConfig;
use rental_tests::http::TestServer;

use crate::client::{Client, PASSWORD, config};

/// A server whose trusted proxies are `proxies` (the tests connect from 127.0.0.1).
async fn server(proxies: &str) -> TestServer<MemoryStore> {
    let trusted_proxies = proxies.parse().expect("a valid list");
    let server = TestServer::with_config(&ServerConfig { trusted_proxies, ..config(AdminConfig::default()) }).await;
    server.rental.admin().set_admin_password(PASSWORD).expect("the password is set");
    server
}

/// Five wrong passwords: enough to make the next try wait.
async fn lock_out(client: &Client) {
    for _ in 0..5 {
        client.login("not the password").await.expect(401);
    }
    client.login("not the password").await.expect(429);
}

#[tokio::test]
async fn two_clients_behind_a_trusted_proxy_are_throttled_separately() {
    let s = server("127.0.0.0/8, ::1").await;
    let guesser = Client::behind_proxy(&s.http, "203.0.113.7");
    lock_out(&guesser).await;
    // Another client through the same proxy still logs in.
    let owner = Client::behind_proxy(&s.http, "198.51.100.20");
    owner.login(PASSWORD).await.expect(303);
    // A client that forged an address before the proxy's entry is still the address the proxy saw.
    let forger = Client::behind_proxy(&s.http, "198.51.100.20, 203.0.113.7");
    forger.login(PASSWORD).await.expect(429);
}

#[tokio::test]
async fn an_untrusted_peer_s_forwarded_for_is_ignored() {
    let s = server("10.0.0.0/8").await;
    lock_out(&Client::behind_proxy(&s.http, "203.0.113.7")).await;
    // Naming another address does not escape the wait: the peer is what counts.
    Client::behind_proxy(&s.http, "198.51.100.20").login(PASSWORD).await.expect(429);
    Client::new(&s.http).login(PASSWORD).await.expect(429);
}

#[tokio::test]
async fn addresses_of_one_ipv6_64_share_one_count_of_wrong_passwords() {
    let s = server("127.0.0.0/8, ::1").await;
    // A client rotating through its /64: each try from a new address.
    for i in 1..=5 {
        Client::behind_proxy(&s.http, &format!("2001:db8:5:6::{i:x}")).login("not the password").await.expect(401);
    }
    Client::behind_proxy(&s.http, "2001:db8:5:6:ffff:1:2:3").login(PASSWORD).await.expect(429);
    // Another /64 has its own count.
    Client::behind_proxy(&s.http, "2001:db8:5:7::1").login(PASSWORD).await.expect(303);
}
