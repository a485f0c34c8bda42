//! Attacks from one address do not deny service to another: while 127.0.0.1
//! holds 600 idle connections, trickles bodies to `/admin/login` and to the
//! API, and pipelines requests it never reads, a client on 127.0.0.2 gets
//! every answer within a second. The server runs with its default limits.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rental_tests::http::TestServer;

use crate::connections::response;
use crate::slow_clients::connect_from;

/// How long the attacks run while the other client is served.
const ATTACK: Duration = Duration::from_secs(6);

/// A blocking connection from `from`, or `None` when the server refuses it.
fn open(runtime: &tokio::runtime::Handle, from: &str, addr: SocketAddr) -> Option<TcpStream> {
    runtime.block_on(connect_from(from, addr)).ok()
}

/// Runs `attack` on its own thread, again and again, until `stop`.
fn spawn(stop: &Arc<AtomicBool>, attack: impl Fn() + Send + 'static) -> JoinHandle<()> {
    let stop = Arc::clone(stop);
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            attack();
        }
    })
}

/// Slow bodies: `count` connections announce 64 KiB and send a byte every
/// 4 s; those the server closes are opened again.
fn slow_bodies(runtime: &tokio::runtime::Handle, addr: SocketAddr, head: &str, count: usize, stop: &AtomicBool) {
    let mut streams: Vec<TcpStream> = Vec::new();
    for tick in 0.. {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if tick % 8 == 0 {
            streams.retain_mut(|stream| stream.write_all(b"x").is_ok());
        }
        while streams.len() < count {
            let Some(mut stream) = open(runtime, "127.0.0.1", addr) else { break };
            if stream.write_all(head.as_bytes()).is_ok() {
                streams.push(stream);
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_attacking_does_not_keep_another_waiting() {
    let s = TestServer::memory().await;
    let (addr, key) = (s.addr, s.key.clone());
    let runtime = tokio::runtime::Handle::current();
    let stop = Arc::new(AtomicBool::new(false));
    let form_head = "POST /admin/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                     Content-Length: 65536\r\n\r\n";
    let api_head = format!(
        "POST /api/v1/quotes HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n"
    );
    let mut attacks = Vec::new();
    let (rt, flag) = (runtime.clone(), Arc::clone(&stop));
    attacks.push(spawn(&stop, move || slow_bodies(&rt, addr, form_head, 150, &flag)));
    let (rt, flag) = (runtime.clone(), Arc::clone(&stop));
    attacks.push(spawn(&stop, move || slow_bodies(&rt, addr, &api_head, 150, &flag)));
    let rt = runtime.clone();
    attacks.push(spawn(&stop, move || {
        // Pipelines never read: 300 requests for the OpenAPI document on each of 20.
        let pipeline = "GET /api/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n".repeat(300);
        let held: Vec<TcpStream> = (0..20).filter_map(|_| open(&rt, "127.0.0.1", addr)).collect();
        for mut stream in &held {
            let _ = stream.write_all(pipeline.as_bytes());
        }
        std::thread::sleep(Duration::from_secs(2));
    }));
    let (rt, flag) = (runtime.clone(), Arc::clone(&stop));
    attacks.push(spawn(&stop, move || {
        // 600 idle connections that send nothing.
        let held: Vec<TcpStream> = (0..600).filter_map(|_| open(&rt, "127.0.0.1", addr)).collect();
        while !flag.load(Ordering::Relaxed) && !held.is_empty() {
            std::thread::sleep(Duration::from_millis(200));
        }
    }));
    tokio::time::sleep(Duration::from_millis(500)).await;

    let rt = runtime.clone();
    let waits = tokio::task::spawn_blocking(move || {
        let mut waits = Vec::new();
        let started = Instant::now();
        while started.elapsed() < ATTACK {
            let asked = Instant::now();
            let mut stream = open(&rt, "127.0.0.2", addr).expect("the other address is let in");
            stream.write_all(b"GET /api/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
            assert_eq!(response(&mut stream).map(|r| r.0), Some(200));
            waits.push(asked.elapsed());
            std::thread::sleep(Duration::from_millis(200));
        }
        waits
    })
    .await
    .expect("the other client does not panic");
    stop.store(true, Ordering::Relaxed);
    for attack in attacks {
        attack.join().expect("an attack thread does not panic");
    }

    let mut sorted = waits.clone();
    sorted.sort();
    let (median, max) = (sorted[sorted.len() / 2], sorted[sorted.len() - 1]);
    eprintln!("under attack: {} answers to 127.0.0.2, median {median:?}, max {max:?}", sorted.len());
    assert!(waits.len() >= 10, "only {} answers in {ATTACK:?}", waits.len());
    assert!(max < Duration::from_secs(1), "an answer took {max:?}; all: {waits:?}");
    s.stop().await;
}
