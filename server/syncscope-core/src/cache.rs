//! The query cache: results of SMT queries by the stable hash of exactly what
//! they depend on. The server keeps one across edits, so an edit re-runs only
//! the queries whose inputs changed.

use crate::model::Kernel;
use crate::report::{Finding, KernelReport};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

/// A query's outcome with the Z3 resource units its solve spent. A hit
/// charges the kernel's budget those units, as the check would have, so
/// that a kernel's budget, and what it finds within it, does not depend
/// on what the cache held (two kernels of a file asking one query at the
/// same time, which of them asks first; a server's warm cache).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedAnswer {
    pub outcome: QueryOutcome,
    pub units: u64,
}

/// The complete result of one kernel (findings with their quick-fixes, and
/// its report), with byte offsets relative to the start of its definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResult {
    pub findings: Vec<Finding>,
    pub report: KernelReport,
}

impl KernelResult {
    /// The same result with every span moved by `delta` bytes (between
    /// offsets relative to the kernel's definition and file offsets).
    pub fn shifted(mut self, delta: i64) -> KernelResult {
        self.findings
            .iter_mut()
            .for_each(|f| f.shift_offsets(delta));
        self.report.span.shift_offsets(delta);
        self
    }
}

pub trait QueryCache: Send + Sync {
    fn get(&self, key: u64) -> Option<CachedAnswer>;
    fn insert(&self, key: u64, answer: CachedAnswer);
    /// Whole-kernel results by the hash of the kernel's model, source text and
    /// options (see `verify::kernel_key`): a kernel an edit did not touch is
    /// not verified again. Caches that keep none return `None`.
    fn get_kernel(&self, _key: u64) -> Option<Arc<KernelResult>> {
        None
    }
    fn insert_kernel(&self, _key: u64, _outcome: Arc<KernelResult>) {}
    /// Verified quick-fixes of one finding by the hash of its kernel's key
    /// and the finding (offsets relative to the kernel's definition).
    fn get_fixes(&self, _key: u64) -> Option<Vec<crate::report::Fix>> {
        None
    }
    fn insert_fixes(&self, _key: u64, _fixes: Vec<crate::report::Fix>) {}
    /// Lowered kernel models by the hash of everything lowering read (the
    /// kernel's text and place, the file around it, the options; see
    /// `analysis::models`): an edit in one kernel lowers that kernel only.
    /// Caches that keep none return `None`.
    fn get_model(&self, _key: u64) -> Option<Arc<Kernel>> {
        None
    }
    fn insert_model(&self, _key: u64, _model: Arc<Kernel>) {}
}

/// A simple in-process cache (the CLI's; the server uses a concurrent map).
#[derive(Default)]
pub struct MemoryCache {
    map: Mutex<HashMap<u64, CachedAnswer>>,
}

impl QueryCache for MemoryCache {
    fn get(&self, key: u64) -> Option<CachedAnswer> {
        self.map.lock().ok()?.get(&key).cloned()
    }
    fn insert(&self, key: u64, answer: CachedAnswer) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(key, answer);
        }
    }
}

/// A cache that remembers nothing (benchmarks of cold runs).
pub struct NoCache;

impl QueryCache for NoCache {
    fn get(&self, _: u64) -> Option<CachedAnswer> {
        None
    }
    fn insert(&self, _: u64, _: CachedAnswer) {}
}
