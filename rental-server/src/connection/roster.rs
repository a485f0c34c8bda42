//! Every open connection, so that a full server can make room: when all slots
//! are taken, a client under its fair share gets the slot of the oldest idle connection of a client over it.
//!
//! The fair share is the connection cap divided by the clients holding
//! connections (the newcomer included). A connection is idle while no request
//! of it is being answered: waiting for its first head, or between keep-alive requests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::client_addr::ClientGroup as Client;

/// The open connections, by id.
#[derive(Debug, Default)]
pub struct Roster {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Entry>>,
}

#[derive(Debug)]
struct Entry {
    /// `None` for a trusted proxy's connection: never counted, never closed to make room.
    client: Option<Client>,
    since: Instant,
    busy: Arc<AtomicBool>,
    close: Arc<Notify>,
    /// Told to close already: not picked twice.
    leaving: bool,
}

/// One connection's place on the roster: it leaves when this is dropped.
#[derive(Debug)]
pub struct Seat {
    roster: Arc<Roster>,
    id: u64,
    /// True while a request of the connection is being answered.
    pub busy: Arc<AtomicBool>,
    /// Notified when the connection must close to make room.
    pub close: Arc<Notify>,
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.roster.open.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.id);
    }
}

/// What a full server does with a new connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Room {
    /// An idle connection of a client over its share was told to close: wait for its slot.
    Made,
    /// The newcomer's client holds its fair share already, and others hold the rest: refuse it.
    OverShare,
    /// Every connection is busy: wait for one to end.
    Wait,
}

impl Roster {
    /// An empty roster.
    pub fn new() -> Arc<Self> {
        Arc::new(Roster::default())
    }

    /// Puts a new connection of `client` on the roster.
    pub fn seat(self: &Arc<Self>, client: Option<Client>) -> Seat {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (busy, close) = (Arc::new(AtomicBool::new(false)), Arc::new(Notify::new()));
        let entry =
            Entry { client, since: Instant::now(), busy: Arc::clone(&busy), close: Arc::clone(&close), leaving: false };
        self.open.lock().unwrap_or_else(PoisonError::into_inner).insert(id, entry);
        Seat { roster: Arc::clone(self), id, busy, close }
    }

    /// With every one of `cap` slots taken, makes room for a connection of
    /// `newcomer` (`None`: a trusted proxy) if its client is under its fair share.
    pub fn make_room(&self, newcomer: Option<Client>, cap: usize) -> Room {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let mut held: HashMap<Client, usize> = HashMap::new();
        for client in open.values().filter_map(|e| e.client) {
            *held.entry(client).or_default() += 1;
        }
        let clients = held.len() + usize::from(newcomer.is_some_and(|c| !held.contains_key(&c)));
        let fair = (cap / clients.max(1)).max(1);
        if newcomer.is_some_and(|c| held.get(&c).copied().unwrap_or(0) >= fair) {
            // Alone, a client queues for the next free slot as it always did.
            return if clients > 1 { Room::OverShare } else { Room::Wait };
        }
        let victim = open
            .values_mut()
            .filter(|e| !e.leaving && !e.busy.load(Ordering::Relaxed))
            .filter(|e| e.client.is_some_and(|c| held[&c] > fair))
            .min_by_key(|e| e.since);
        match victim {
            Some(victim) => {
                victim.leaving = true;
                victim.close.notify_one();
                Room::Made
            }
            None => Room::Wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn client(ip: &str) -> Client {
        Client::of(ip.parse::<IpAddr>().unwrap())
    }

    #[tokio::test]
    async fn a_full_server_closes_the_oldest_idle_connection_of_a_client_over_its_share() {
        let roster = Roster::new();
        // Four slots: one client holds three (one busy), another one.
        let busy_one = roster.seat(Some(client("192.0.2.1")));
        busy_one.busy.store(true, Ordering::Relaxed);
        let oldest_idle = roster.seat(Some(client("192.0.2.1")));
        let _younger = roster.seat(Some(client("192.0.2.1")));
        let _other = roster.seat(Some(client("192.0.2.2")));
        // A third client's fair share is 4 / 3 = 1: it is under it, and the
        // first client is over it, so its oldest idle connection goes.
        assert_eq!(roster.make_room(Some(client("192.0.2.3")), 4), Room::Made);
        tokio::time::timeout(std::time::Duration::from_secs(1), oldest_idle.close.notified()).await.unwrap();
        // Between the two, the second client's share is 2: it holds 1, so the first's younger idle one goes.
        assert_eq!(roster.make_room(Some(client("192.0.2.2")), 4), Room::Made);
        // The first client holds more than its share already: refused.
        assert_eq!(roster.make_room(Some(client("192.0.2.1")), 4), Room::OverShare);
        // A trusted proxy is never refused; with nothing idle over a share left, it waits.
        assert_eq!(roster.make_room(None, 4), Room::Wait);
    }

    #[test]
    fn a_client_alone_at_the_cap_waits_for_a_slot() {
        let roster = Roster::new();
        let _seats: Vec<Seat> = (0..2).map(|_| roster.seat(Some(client("192.0.2.1")))).collect();
        assert_eq!(roster.make_room(Some(client("192.0.2.1")), 2), Room::Wait);
    }
}
