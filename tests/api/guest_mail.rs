//! What a guest or host reads in messages (issue 44) through a real SMTP
//! server: who a new request replies to, plurals, the reminder's day, the
//! clock of the property, the wording of a lapsed request, and the host told
//! before a request lapses.

use rental_core::MemoryStore;
use rental_tests::http::TestServer;
use rental_tests::smtp::SmtpServer;

use crate::messages::{WAIT, of_kind, server};

/// A pending request of `guests` for `check_in..check_out` at sea-view; its code.
async fn requested(s: &TestServer<MemoryStore>, check_in: &str, check_out: &str, guests: u32) -> String {
    s.book("sea-view", check_in, check_out, guests).await["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_hosts_new_request_replies_to_the_guest() {
    let Some(smtp) = SmtpServer::start() else { return };
    let s = server(&smtp).await;
    requested(&s, "2026-12-20", "2026-12-23", 2).await;
    let got = smtp.wait_for(2, WAIT).await;
    let host = of_kind(&got, "New request");
    assert_eq!(host.header("Reply-To"), "Ada Lovelace <ada@example.com>", "the host answers the guest");
    let guest = of_kind(&got, "We received your request");
    assert_eq!(guest.header("Reply-To"), "Sea View <stay@example.com>", "the guest answers the property");
}
