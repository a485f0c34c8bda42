//! placeholder until the benches land
fn main() {}
