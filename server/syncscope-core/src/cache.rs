//! The query cache: results of SMT queries by the stable hash of exactly what
//! they depend on. The server keeps one across edits, so an edit re-runs only
//! the queries whose inputs changed.

use std::collections::HashMap;
use std::sync::Mutex;

/// The outcome of one query, independent of source positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryOutcome {
    /// Unsatisfiable: the property holds.
    Unsat,
    /// Satisfiable, with the model's values by symbol name.
    Sat(Vec<(String, i64)>),
    /// Timeout or solver gave up (reason).
    Unknown(String),
}

pub trait QueryCache: Send + Sync {
    fn get(&self, key: u64) -> Option<QueryOutcome>;
    fn insert(&self, key: u64, outcome: QueryOutcome);
}

/// A simple in-process cache (the CLI's; the server uses a concurrent map).
#[derive(Default)]
pub struct MemoryCache {
    map: Mutex<HashMap<u64, QueryOutcome>>,
}

impl QueryCache for MemoryCache {
    fn get(&self, key: u64) -> Option<QueryOutcome> {
        self.map.lock().ok()?.get(&key).cloned()
    }
    fn insert(&self, key: u64, outcome: QueryOutcome) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(key, outcome);
        }
    }
}

/// A cache that remembers nothing (benchmarks of cold runs).
pub struct NoCache;

impl QueryCache for NoCache {
    fn get(&self, _: u64) -> Option<QueryOutcome> {
        None
    }
    fn insert(&self, _: u64, _: QueryOutcome) {}
}
