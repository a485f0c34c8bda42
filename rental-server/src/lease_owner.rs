//! Lease owner names: each process that claims work in the store (deliveries, messages,
//! feed pulls, payments) names itself uniquely, so its leases are told apart.

/// `role`, the process id and the start instant: unique per process and start.
pub(crate) fn lease_owner(role: &str) -> String {
    let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format!("{role}-{}-{:x}", std::process::id(), started.as_nanos())
}
