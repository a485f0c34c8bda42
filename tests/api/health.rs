//! `/healthz` and `/readyz` (docs/API.md section 22): alive while the process
//! runs; ready while the store answers, its schema is current and shutdown has
//! not begun. On PostgreSQL the database is stopped and started under the server.

use std::time::{Duration, Instant};

use rental_core::store::PgStore;
use rental_server::ServerConfig;
use rental_tests::http::TestServer;
use rental_tests::postgres::PgCluster;
use rental_tests::tools;
use serde_json::json;

#[tokio::test]
async fn healthz_and_readyz_answer_without_a_key() {
    let server = TestServer::redb().await;
    let health = server.http.get("/healthz", "").await;
    health.expect(200);
    assert_eq!(health.body, json!({"status": "ok"}));
    let ready = server.http.get("/readyz", "").await;
    ready.expect(200);
    assert_eq!(ready.body, json!({"status": "ready"}));
    server.http.send_json(http::Method::POST, "/readyz", "", &json!({})).await.problem(405, "method_not_allowed");
    server.stop().await;
}

#[tokio::test]
async fn readyz_turns_503_or_the_listener_closes_the_moment_shutdown_begins() {
    let mut server = TestServer::memory().await;
    server.http.get("/readyz", "").await.expect(200);
    let addr = server.http.addr;
    let stopping = server.begin_shutdown();
    let began = Instant::now();
    // A load balancer's next probe: refused, closed unanswered, or 503, never 200 once shutdown began.
    let probe = tokio::task::spawn_blocking(move || {
        loop {
            match probe_readyz(addr) {
                Some(200) if began.elapsed() < Duration::from_millis(100) => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                answer => return (answer, began.elapsed()),
            }
        }
    });
    let (answer, after) = probe.await.unwrap();
    assert!(matches!(answer, None | Some(503)), "/readyz answered {answer:?} {after:?} into the shutdown");
    assert!(after < Duration::from_millis(100), "not ready only after {after:?}");
    stopping.await.unwrap().unwrap();
}

/// `GET /readyz` on a new connection: its status, or `None` when the connection is refused or closed unanswered.
fn probe_readyz(addr: std::net::SocketAddr) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream.write_all(b"GET /readyz HTTP/1.1\r\nHost: rental\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response.split(' ').nth(1)?.parse().ok()
}

#[test]
fn on_postgres_readyz_follows_the_database_down_and_up_again() {
    if !tools::postgres() {
        return;
    }
    // A cluster of its own, which this test stops; set up before the runtime (its client blocks).
    let cluster = PgCluster::start();
    let url = cluster.database();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(readyz_follows_the_database(&cluster, &url));
}

async fn readyz_follows_the_database(cluster: &PgCluster, url: &str) {
    let store = PgStore::open(url).unwrap();
    let server = TestServer::with_store(store, &ServerConfig::default()).await;
    server.http.get("/readyz", "").await.expect(200);

    cluster.stop();
    let stopped = Instant::now();
    let down = wait_for(&server, 503, Duration::from_secs(2)).await;
    eprintln!("503 {:?} after the database stopped", stopped.elapsed());
    down.problem(503, "unavailable");
    assert_eq!(down.body["checks"]["store"], "unavailable", "{}", down.body);
    assert_eq!(down.body["checks"]["shutdown"], "ok", "{}", down.body);
    server.http.get("/healthz", "").await.expect(200);

    cluster.restart();
    let started = Instant::now();
    wait_for(&server, 200, Duration::from_secs(5)).await;
    eprintln!("200 {:?} after the database started again", started.elapsed());
    server.http.get("/healthz", "").await.expect(200);

    // A newer rental moved the schema on: not ready, and it says why.
    let newer = PgStore::schema_version() + 1;
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        db.batch_execute(&format!("INSERT INTO schema_migrations (version) VALUES ({newer})")).unwrap();
    })
    .await
    .unwrap();
    let moved = wait_for(&server, 503, Duration::from_secs(2)).await;
    assert_eq!(moved.body["checks"]["store"], "ok", "{}", moved.body);
    assert_ne!(moved.body["checks"]["schema"], "ok", "{}", moved.body);
    server.stop().await;
}

/// `/readyz` until it answers `status`, for at most `within` (each try has the server's own 1 s deadline).
async fn wait_for<S: rental_core::Store + 'static>(
    server: &TestServer<S>,
    status: u16,
    within: Duration,
) -> rental_tests::http::Reply {
    let deadline = Instant::now() + within;
    loop {
        let reply = server.http.get("/readyz", "").await;
        if reply.status == status {
            return reply;
        }
        assert!(Instant::now() < deadline, "/readyz still {} after {within:?}: {}", reply.status, reply.text());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
