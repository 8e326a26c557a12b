//! Reuse of lowered kernel models across analyses of an edited file: a
//! kernel is lowered again only when something its lowering read changed.
//!
//! A model depends on the kernel's own text, on its place (messages and
//! spans name lines and columns), on everything outside the kernel
//! definitions that lowering may read (`frontend::Surroundings`: macros,
//! typedefs, structs, device functions, globals, templates, directives, the
//! other kernels' names) and on the options. The key holds all of them, so
//! any change to the surroundings lowers every kernel again.
//!
//! A model whose spans all lie in its own definition is kept with offsets
//! relative to it (an edit elsewhere that moves the kernel by some bytes
//! keeps it); one that points outside (an access in an inlined device
//! function) is kept at its absolute offsets, keyed also by where every
//! piece of the surroundings lies.

use crate::cache::QueryCache;
use crate::frontend::KernelSite;
use crate::model::Kernel;
use crate::options::Options;
use std::sync::Arc;

/// Every kernel of the file, in source order: reused where the cache holds
/// the model of the same inputs, lowered otherwise (and kept).
pub(crate) fn lower(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    options_hash: u64,
    cache: &dyn QueryCache,
) -> Vec<Kernel> {
    let reuse = |site: &KernelSite| -> Option<Kernel> {
        let own = own_text(text, site)?;
        if let Some(m) = cache.get_model(relative_key(own, site, options_hash)) {
            let mut k = Kernel::clone(&m);
            k.shift_offsets(i64::from(site.span.start.offset));
            return Some(k);
        }
        cache
            .get_model(placed_key(own, site, options_hash))
            .map(|m| Kernel::clone(&m))
    };
    let lowered = crate::frontend::lower_file_reusing(text, tree, options, &reuse);
    for l in lowered.iter().filter(|l| !l.reused) {
        let Some(own) = own_text(text, &l.site) else {
            continue;
        };
        let (start, end) = (l.site.span.start.offset, l.site.span.end.offset);
        if l.kernel.spans_within(start, end) {
            let mut relative = l.kernel.clone();
            relative.shift_offsets(-i64::from(start));
            cache.insert_model(relative_key(own, &l.site, options_hash), Arc::new(relative));
        } else {
            cache.insert_model(
                placed_key(own, &l.site, options_hash),
                Arc::new(l.kernel.clone()),
            );
        }
    }
    lowered.into_iter().map(|l| l.kernel).collect()
}

fn own_text<'a>(text: &'a str, site: &KernelSite) -> Option<&'a str> {
    text.get(site.span.start.offset as usize..site.span.end.offset as usize)
}

/// The key of a model kept relative to its definition: everything but the
/// definition's byte offset.
fn relative_key(own: &str, site: &KernelSite, options_hash: u64) -> u64 {
    super::hash_of(&(
        "model",
        own,
        site.span.start.line,
        site.span.start.column,
        site.surroundings.text,
        options_hash,
    ))
}

/// The key of a model kept at absolute offsets: its place and the place of
/// every piece of its surroundings too.
fn placed_key(own: &str, site: &KernelSite, options_hash: u64) -> u64 {
    super::hash_of(&(
        "model at",
        own,
        site.span.start,
        site.surroundings.placed,
        options_hash,
    ))
}

#[cfg(test)]
mod tests {
    use crate::cache::{CachedAnswer, KernelResult, MemoryCache, QueryCache};
    use crate::model::Kernel;
    use crate::options::Options;
    use crate::report::{FileReport, FindingKind, KernelStatus};
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    /// The server's kinds of memory: queries, whole-kernel results and
    /// models, counting the models it answers.
    #[derive(Default)]
    struct ServerLikeCache {
        queries: MemoryCache,
        kernels: Mutex<HashMap<u64, Arc<KernelResult>>>,
        models: Mutex<HashMap<u64, Arc<Kernel>>>,
        models_reused: AtomicUsize,
    }

    impl QueryCache for ServerLikeCache {
        fn get(&self, key: u64) -> Option<CachedAnswer> {
            self.queries.get(key)
        }
        fn insert(&self, key: u64, answer: CachedAnswer) {
            self.queries.insert(key, answer)
        }
        fn get_kernel(&self, key: u64) -> Option<Arc<KernelResult>> {
            self.kernels.lock().unwrap().get(&key).cloned()
        }
        fn insert_kernel(&self, key: u64, outcome: Arc<KernelResult>) {
            self.kernels.lock().unwrap().insert(key, outcome);
        }
        fn get_model(&self, key: u64) -> Option<Arc<Kernel>> {
            let m = self.models.lock().unwrap().get(&key).cloned();
            if m.is_some() {
                self.models_reused.fetch_add(1, Ordering::Relaxed);
            }
            m
        }
        fn insert_model(&self, key: u64, model: Arc<Kernel>) {
            self.models.lock().unwrap().insert(key, model);
        }
    }

    /// What `uses` reads outside itself, each a piece the test edits.
    struct Around {
        stride: &'static str,
        pick: &'static str,
        shift: &'static str,
    }

    const CLEAN: Around = Around {
        stride: "1",
        pick: "t",
        shift: "0",
    };

    /// A kernel before the helpers (edited, so everything after it moves),
    /// a macro, a struct with a method, a device function that writes, and
    /// `uses`, which reads all of them and is never edited itself.
    fn file(around: &Around, constant: u32) -> String {
        format!(
            "__global__ void edited(float *a) {{\n    a[threadIdx.x] = {constant}.0f;\n}}\n\n\
             #define STRIDE {}\n\
             struct Offset {{\n    __device__ int shift() const {{ return {}; }}\n}};\n\
             __device__ int pick(int t) {{ return {}; }}\n\
             __device__ void put(float *s, int i, float v) {{ s[i] = v; }}\n\n\
             __global__ void uses(float *a) {{\n    __shared__ float s[64];\n    int t = threadIdx.x;\n    Offset o;\n    put(s, pick(t) * STRIDE, a[t]);\n    a[t] = s[(t + o.shift()) % 64];\n}}\n",
            around.stride, around.shift, around.pick
        )
    }

    fn run(text: &str, cache: &dyn QueryCache) -> FileReport {
        let options = Options {
            block_dim: Some([64, 1, 1]),
            grid_dim: Some([1, 1, 1]),
            ..Options::default()
        };
        let tree = crate::parse(text, None);
        let mut r = super::super::analyze_file(text, &tree, &options, cache, None, None);
        r.kernels.iter_mut().for_each(|k| k.millis = 0);
        r
    }

    fn status_of(r: &FileReport, kernel: &str) -> KernelStatus {
        r.kernels.iter().find(|k| k.name == kernel).unwrap().status
    }

    /// The warm analysis (after every earlier state) says exactly what a cold
    /// one says.
    fn same_as_cold(text: &str, cache: &ServerLikeCache) -> FileReport {
        let warm = run(text, cache);
        let cold = run(text, &MemoryCache::default());
        assert_eq!(warm.findings, cold.findings, "{text}");
        assert_eq!(warm.kernels, cold.kernels, "{text}");
        warm
    }

    #[test]
    fn an_edit_in_another_kernel_reuses_the_model_and_keeps_the_verdict() {
        let cache = ServerLikeCache::default();
        let first = same_as_cold(&file(&CLEAN, 1), &cache);
        assert_eq!(status_of(&first, "uses"), KernelStatus::Verified);
        assert_eq!(cache.models_reused.load(Ordering::Relaxed), 0);
        // Same length: nothing after the edited kernel moves.
        let same_length = same_as_cold(&file(&CLEAN, 2), &cache);
        assert_eq!(status_of(&same_length, "uses"), KernelStatus::Verified);
        assert_eq!(cache.models_reused.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_kernel_whose_model_points_into_moved_code_is_lowered_again() {
        // `put`'s write is in the model of `uses` with the span of `put`:
        // when an edit before `put` moves it, the model must follow.
        let cache = ServerLikeCache::default();
        same_as_cold(&file(&CLEAN, 1), &cache);
        let moved = same_as_cold(&file(&CLEAN, 1000), &cache);
        assert_eq!(status_of(&moved, "uses"), KernelStatus::Verified);
    }

    #[test]
    fn an_edit_to_what_an_unchanged_kernel_reads_changes_its_verdict() {
        let edits = [
            (
                "device function",
                Around {
                    pick: "t + 1",
                    ..CLEAN
                },
            ),
            (
                "macro",
                Around {
                    stride: "2",
                    ..CLEAN
                },
            ),
            (
                "struct method",
                Around {
                    shift: "1",
                    ..CLEAN
                },
            ),
        ];
        for (what, around) in edits {
            let cache = ServerLikeCache::default();
            let clean = same_as_cold(&file(&CLEAN, 1), &cache);
            assert_eq!(status_of(&clean, "uses"), KernelStatus::Verified, "{what}");
            let racy = same_as_cold(&file(&around, 1), &cache);
            assert_eq!(status_of(&racy, "uses"), KernelStatus::Racy, "{what}");
            assert!(
                racy.findings.iter().any(|f| f.kind == FindingKind::DataRace
                    && f.kernel.as_deref() == Some("uses")),
                "{what}: {:?}",
                racy.findings
            );
            // And back: the first state again, from the cache.
            let again = same_as_cold(&file(&CLEAN, 1), &cache);
            assert_eq!(status_of(&again, "uses"), KernelStatus::Verified, "{what}");
        }
    }
}
