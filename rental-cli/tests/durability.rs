//! Every booking the server acknowledged is on disk: a server killed right
//! after answering (SIGKILL, no shutdown) loses none of them, although
//! concurrent creations share their durable commits (group commit).

mod common;

use std::thread;

use common::{Sandbox, post, stay};
use rental_core::Store;
use rental_core::store::ReadTx;

#[test]
fn bookings_acknowledged_before_a_crash_are_all_there_after_it() {
    let (sandbox, key) = Sandbox::with_key();
    let server = sandbox.serve();
    let addr = server.addr;
    let clients: Vec<_> = (0..8u64)
        .map(|client| {
            let key = key.clone();
            thread::spawn(move || {
                (0..12u64)
                    .map(|i| {
                        let request = serde_json::to_value(stay(30 + 7 * (client * 12 + i), 7)).unwrap();
                        let (status, booking) = post(addr, "/api/v1/bookings", &key, &request);
                        assert_eq!(status, 201, "{booking}");
                        booking["code"].as_str().unwrap().to_owned()
                    })
                    .collect::<Vec<String>>()
            })
        })
        .collect();
    let acknowledged: Vec<String> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    server.kill();
    let library = sandbox.library();
    let read = library.store().read().unwrap();
    let missing: Vec<&String> = acknowledged.iter().filter(|code| read.booking(code).unwrap().is_none()).collect();
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged bookings are gone: {missing:?}",
        missing.len(),
        acknowledged.len()
    );
}
