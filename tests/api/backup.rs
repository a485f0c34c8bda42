//! `GET /api/v1/backup` (docs/API.md section 22): the backup sent while it is
//! written, the same bytes as the library's whole-file backup of the same store.

use rental_core::keys::Scope;
use rental_core::store::{Store, WriteTx};
use rental_core::{Booking, BookingCode};
use rental_tests::http::TestServer;
use rental_tests::new_booking;

/// The `n`th of the copies' codes.
fn code(n: usize) -> BookingCode {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    let digits: String =
        (0..6).rev().map(|i| char::from(ALPHABET[n / ALPHABET.len().pow(i) % ALPHABET.len()])).collect();
    format!("CP-{digits}").parse().unwrap()
}

#[tokio::test]
async fn the_backup_is_streamed_and_holds_the_same_bytes_as_the_librarys_backup() {
    let server = TestServer::redb().await;
    let first = server
        .rental
        .create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None)
        .expect("a booking")
        .booking;
    // Many chunks' worth of bookings: the answer is sent in pieces, not whole.
    let mut tx = server.rental.store().write().unwrap();
    for n in 0..3_000 {
        tx.put_booking(&Booking { code: code(n), ..first.clone() }).unwrap();
    }
    tx.commit().unwrap();
    let key = server.rental.admin().create_key("backups", &[Scope::Backup]).expect("a key").secret;

    // The key's first use is recorded in the store: made before the two backups compared.
    server.http.get("/api/v1/backup", &key).await.expect(200);
    let mut whole = Vec::new();
    server.rental.backup(&mut whole).expect("the library's backup");
    let answer = server.http.get("/api/v1/backup", &key).await;
    answer.expect(200);
    assert_eq!(answer.header("content-type"), Some("application/x-ndjson"));
    // No length announced: the file is sent as it is written.
    assert_eq!(answer.header("transfer-encoding"), Some("chunked"), "{:?}", answer.headers);
    assert_eq!(answer.header("content-length"), None);
    assert!(whole.len() > 1 << 20, "the store's backup is {} bytes", whole.len());
    assert_eq!(answer.bytes.len(), whole.len());
    assert!(answer.bytes == whole, "the HTTP backup differs from the library's");
    rental_core::backup::read(&answer.bytes).expect("the HTTP backup reads back");

    // A key without the scope still gets nothing.
    server.http.get("/api/v1/backup", &server.key).await.problem(403, "insufficient_scope");
    server.stop().await;
}
