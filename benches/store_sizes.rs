//! Where a redb store's bytes go: one line per table with its rows, the
//! bytes of its keys and values, its leaf and branch pages and its height,
//! largest first. For a store grown by `benches/growth.sh` (`GROWTH_KEEP=1`),
//! with the server stopped (redb locks the file).
//!
//! Usage: `store-sizes FILE [BOOKINGS]`, FILE being a data directory's
//! `rental.redb`; with BOOKINGS (how many it holds), also page bytes a booking.
//! With `STORE_SAMPLE=1`, also the first row of each record kind in `records`
//! and `booking_records`.

use std::process::ExitCode;

use redb::{ReadOnlyDatabase, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle};

/// redb's page size.
const PAGE: u64 = 4096;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: store-sizes FILE [BOOKINGS]");
        return ExitCode::from(2);
    };
    let per: Option<u64> = args.next().and_then(|n| n.parse().ok()).filter(|n| *n > 0);
    match sizes(&file) {
        Ok(mut tables) => {
            tables.sort_by_key(|t| std::cmp::Reverse(t.pages));
            println!(
                "{:<22} {:>10} {:>12} {:>9} {:>7} {:>12}",
                "table", "rows", "stored_B", "pages", "height", "page_B/booking"
            );
            for t in &tables {
                let share = per.map_or_else(|| "-".to_owned(), |n| (t.pages * PAGE + n / 2).div_euclid(n).to_string());
                println!("{:<22} {:>10} {:>12} {:>9} {:>7} {:>12}", t.name, t.rows, t.stored, t.pages, t.height, share);
            }
            if std::env::var_os("STORE_SAMPLE").is_some()
                && let Err(e) = sample(&file)
            {
                eprintln!("store-sizes: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("store-sizes: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Table {
    name: String,
    rows: u64,
    stored: u64,
    pages: u64,
    height: u32,
}

fn sizes(file: &str) -> Result<Vec<Table>, Box<dyn std::error::Error>> {
    let db = ReadOnlyDatabase::open(file)?;
    let tx = db.begin_read()?;
    let mut out = Vec::new();
    for handle in tx.list_tables()? {
        let name = handle.name().to_owned();
        let table = tx.open_untyped_table(handle)?;
        let stats = table.stats()?;
        out.push(Table {
            name,
            rows: table.len()?,
            stored: stats.stored_bytes(),
            pages: stats.leaf_pages() + stats.branch_pages(),
            height: stats.tree_height(),
        });
    }
    Ok(out)
}

/// Prints the first row of each record kind in `records` (keyed `(kind, key)`)
/// and `booking_records` (keyed `(booking, kind, key)`), both valued `(time, JSON)`.
fn sample(file: &str) -> Result<(), Box<dyn std::error::Error>> {
    let db = ReadOnlyDatabase::open(file)?;
    let tx = db.begin_read()?;
    let mut seen = std::collections::HashSet::new();
    let mut show = |kind: &str, id: &str, doc: &[u8]| {
        if seen.insert(kind.to_owned()) {
            println!("{kind} {id} ({} bytes): {}", doc.len(), String::from_utf8_lossy(doc));
        }
    };
    let records = tx.open_table(TableDefinition::<(&str, &str), (Option<i64>, &[u8])>::new("records"))?;
    for row in records.iter()? {
        let (key, value) = row?;
        let (kind, id) = key.value();
        show(kind, id, value.value().1);
    }
    let by_booking = TableDefinition::<(u64, &str, &str), (Option<i64>, &[u8])>::new("booking_records");
    if let Ok(table) = tx.open_table(by_booking) {
        for row in table.iter()? {
            let (key, value) = row?;
            let (_, kind, id) = key.value();
            show(kind, id, value.value().1);
        }
    }
    Ok(())
}
