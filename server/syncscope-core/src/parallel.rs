//! Independent work spread over the cores: the kernels of a file are
//! lowered (`frontend::lower_file`) and verified (`verify::verify_kernels`)
//! this way.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Stack for a thread that analyses a whole file: lowering recurses on the
/// syntax tree, and hostile input nests deeply (the front end bounds the
/// depth too).
pub(crate) const ANALYSIS_STACK: usize = 256 << 20;

/// The cores this process may use (1 when unknown).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Applies `f` to every item on `workers` threads (at least one, at most one
/// per item) of `stack` bytes of stack each, which take the next item as they finish the last;
/// the results are in item order. An item no worker did (a thread could not
/// be started) is done on the calling thread. A panic in `f` reaches the
/// caller with its own payload, as if `f` had run here.
///
/// Each item runs holding a [`CoreSlot`] once [`limit_threads_at_work`] set
/// a limit; the calling thread lends its own slot, if it holds one, to the
/// workers while it waits for them (it takes one again before returning).
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    stack: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let _lent = CoreSlot::lend_while_waiting();
    let run = |item: &T| {
        let _slot = CoreSlot::take();
        f(item)
    };
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<std::thread::Result<R>>>> =
        items.iter().map(|_| Mutex::new(None)).collect();
    // No more threads than items: a worker with nothing to do still has to
    // be scheduled once before the scope ends, which on a loaded machine
    // delays a file of one kernel by a time slice.
    std::thread::scope(|s| {
        for _ in 0..workers.max(1).min(items.len()) {
            let _ = std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(item)));
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(out);
                    }
                });
        }
    });
    slots
        .into_iter()
        .zip(items)
        .map(|(slot, item)| match slot.into_inner().ok().flatten() {
            Some(Ok(r)) => r,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => run(item),
        })
        .collect()
}

/// Runs `f` on a thread of its own with [`ANALYSIS_STACK`] bytes of stack
/// (lowering and analysis recurse on the syntax tree) while the calling
/// thread waits, and returns its result (`None`: the thread could not be
/// started, or `f` panicked). The caller's [`CoreSlot`], if it holds one,
/// goes with the work: the new thread holds it (and may lend it to a
/// [`parallel_map`] of its own) until `f` returns.
pub(crate) fn on_analysis_stack<R: Send>(name: &str, f: impl FnOnce() -> R + Send) -> Option<R> {
    let held = HOLDS_SLOT.with(|h| h.replace(false));
    let out = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name(name.into())
            .stack_size(ANALYSIS_STACK)
            .spawn_scoped(s, move || {
                HOLDS_SLOT.with(|h| h.set(held));
                let out = f();
                HOLDS_SLOT.with(|h| h.set(false));
                out
            })
            .ok()
            .and_then(|h| h.join().ok())
    });
    HOLDS_SLOT.with(|h| h.set(held));
    out
}

/// A right to do analysis work on one of the cores, out of a fixed number
/// for the whole process once [`limit_threads_at_work`] set one: each item
/// of a [`parallel_map`] (a file's front end, a kernel's lowering, a
/// kernel's verification) holds one while it runs. A one-shot run analyses
/// its files in parallel and each file spreads its kernels over the cores
/// too: without a limit a two-core machine ran four kernels at once (no
/// faster, since the solver is bound by the processor, and four solver
/// contexts at their peak memory instead of two), and with a limit on
/// kernels alone the front end of the next files still ran beside two
/// kernels, so each kernel's own time (what its report gives) grew by
/// the time it waited for a core: NVIDIA's samples' kernels took 93.7 s
/// together on two cores where one core alone took 73.1 s. The server
/// sets no limit: a file opened while another's slow kernels run is
/// analysed at once, not after them. Dropped, it lets the next one in.
///
/// A thread never waits for a slot while it holds one (a nested take is
/// no wait, and a thread that waits for workers lends its slot to them),
/// so every wait ends.
pub(crate) struct CoreSlot(bool);

thread_local! {
    /// Whether this thread holds a [`CoreSlot`] now.
    static HOLDS_SLOT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The free slots (`None`: no limit).
fn slots() -> &'static (Mutex<Option<usize>>, std::sync::Condvar) {
    static SLOTS: std::sync::OnceLock<(Mutex<Option<usize>>, std::sync::Condvar)> =
        std::sync::OnceLock::new();
    SLOTS.get_or_init(|| (Mutex::new(None), std::sync::Condvar::new()))
}

/// From now on at most `n` threads (at least one) of this process do
/// analysis work at once ([`CoreSlot`]). Call it before any analysis
/// starts.
pub fn limit_threads_at_work(n: usize) {
    *slots().0.lock().unwrap_or_else(|e| e.into_inner()) = Some(n.max(1));
}

impl CoreSlot {
    /// Waits for a free slot, if there is a limit and this thread holds
    /// none yet (a thread holding one already takes nothing more).
    pub(crate) fn take() -> CoreSlot {
        if HOLDS_SLOT.with(|h| h.get()) {
            return CoreSlot(false);
        }
        let (free, freed) = slots();
        let mut n = free.lock().unwrap_or_else(|e| e.into_inner());
        while *n == Some(0) {
            n = freed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        match n.as_mut() {
            Some(left) => {
                *left -= 1;
                HOLDS_SLOT.with(|h| h.set(true));
                CoreSlot(true)
            }
            None => CoreSlot(false),
        }
    }

    /// Gives this thread's slot, if it holds one, back while the returned
    /// guard lives (the thread is about to wait for others' work), and
    /// takes one again when it is dropped.
    fn lend_while_waiting() -> Option<Lent> {
        if !HOLDS_SLOT.with(|h| h.replace(false)) {
            return None;
        }
        free_one();
        Some(Lent)
    }
}

impl Drop for CoreSlot {
    fn drop(&mut self) {
        if self.0 {
            HOLDS_SLOT.with(|h| h.set(false));
            free_one();
        }
    }
}

/// A slot lent by a waiting thread ([`CoreSlot::lend_while_waiting`]).
struct Lent;

impl Drop for Lent {
    fn drop(&mut self) {
        // Taken again as the thread goes on with its own work; the slot
        // `take` gives back is the one its `CoreSlot` will free.
        std::mem::forget(CoreSlot::take());
    }
}

fn free_one() {
    let (free, freed) = slots();
    if let Some(left) = free.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        *left += 1;
    }
    freed.notify_one();
}

/// How far the process may grow past its size after the last
/// [`release_freed_memory`] before freed memory is given back again. Each
/// Z3 context allocates and initialises about 17 MB of tables (two of
/// 8.5 MB): memory given back and allocated again costs a page fault per
/// 4 KiB page, about 10 ms a context, and trimmed after every file that
/// was a quarter of a test binary's processor time.
const KEEP_FREED: u64 = 128 << 20;

/// Gives the memory the allocator holds free back to the system (glibc's
/// `malloc_trim`; nothing elsewhere) once the process has grown by more
/// than [`KEEP_FREED`] since it last did (the first time: once it holds
/// twice that). A kernel's solver context is
/// freed when its worker ends, but glibc keeps freed memory in the arena
/// of the thread that freed it, and a run's many short-lived workers spread
/// over several arenas: NVIDIA's samples in one run peaked at 1.3 GB
/// resident for 250 MB ever allocated at once when nothing was given back.
/// Called after each file's kernels: it reads the resident size, and
/// trimming costs a walk over the free lists.
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::AtomicU64;
        /// The resident size after the last trim (0: none yet).
        static AFTER_LAST_TRIM: AtomicU64 = AtomicU64::new(0);
        extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        let Some(now) = resident_bytes() else { return };
        if now <= AFTER_LAST_TRIM.load(Ordering::Relaxed).max(KEEP_FREED) + KEEP_FREED {
            return;
        }
        // SAFETY: malloc_trim only returns free pages to the system; it
        // touches no memory in use and is thread-safe.
        unsafe {
            malloc_trim(0);
        }
        if let Some(after) = resident_bytes() {
            AFTER_LAST_TRIM.store(after, Ordering::Relaxed);
        }
    }
}

/// The process's resident memory (`/proc/self/statm`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn resident_bytes() -> Option<u64> {
    extern "C" {
        fn sysconf(name: std::ffi::c_int) -> std::ffi::c_long;
    }
    const SC_PAGESIZE: std::ffi::c_int = 30;
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = u64::try_from(unsafe { sysconf(SC_PAGESIZE) }).ok()?;
    Some(pages * page)
}

/// Makes the allocator keep less freed memory, for a one-shot run (glibc;
/// nothing elsewhere): three arenas per core instead of eight (the
/// solver's short-lived workers each kept their own high-water mark), with
/// the thresholds of [`keep_solver_tables`]. Not fewer: Z3 allocates as it
/// makes every term, and glibc hands a new thread an arena in turn, not a
/// free one, so with two arenas the two kernels at work on a two-core
/// machine shared one half the time and waited on its lock. NVIDIA's
/// samples in one run, two runs each: two arenas 46.6-48.9 s wall and
/// 82-87 s of kernel time (one core alone: 73 s), 313-342 MB; six 43.5 s,
/// 77 s, 465 MB; eight 41.2-42.2 s, 73-75 s, 478-486 MB.
pub fn keep_little_freed_memory() {
    // First, so that its arena count (one per core) does not replace this one.
    keep_solver_tables();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let arenas = std::ffi::c_int::try_from(3 * cores()).unwrap_or(2);
        // SAFETY: mallopt only changes the allocator's tunables; it is
        // called before the run's threads start.
        unsafe {
            mallopt(M_ARENA_MAX, arenas);
        }
    }
}

/// Fixes the allocator's thresholds for the solver, once per process
/// (glibc; nothing elsewhere): blocks of 32 MiB and more are mapped and
/// unmapped on their own, free memory at a heap's top is given back past
/// 32 MiB, and there are at most as many arenas as cores (glibc's default
/// is eight per core, each keeping its own free memory). So the 8.5 MB
/// tables of one Z3 context stay in the heaps for the next context, which
/// every kernel makes: mapped on their own (glibc's moving threshold maps
/// blocks of exactly that size), each context paid their page faults
/// again. [`release_freed_memory`] bounds what is kept.
pub(crate) fn keep_solver_tables() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let arenas = std::ffi::c_int::try_from(cores().max(2)).unwrap_or(2);
            // SAFETY: mallopt only changes the allocator's tunables (under
            // glibc's own lock).
            unsafe {
                mallopt(M_MMAP_THRESHOLD, 32 << 20);
                mallopt(M_TRIM_THRESHOLD, 32 << 20);
                mallopt(M_ARENA_MAX, arenas);
            }
        });
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
}

/// glibc's `mallopt` parameters (`malloc.h`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_ARENA_MAX: std::ffi::c_int = -8;

/// The text of a panic's payload (`panic!` with a message or a format).
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

#[cfg(test)]
mod tests {
    use super::parallel_map;

    #[test]
    fn results_keep_item_order_on_any_number_of_workers() {
        let items: Vec<u64> = (0..100).collect();
        for workers in [0, 1, 3, 16] {
            let out = parallel_map(&items, workers, 1 << 20, |x| x * x);
            assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }

    /// One item's work in the slot tests: counted in `running` while it
    /// runs, with the most at once in `most`.
    fn at_work(running: &std::sync::atomic::AtomicUsize, most: &std::sync::atomic::AtomicUsize) {
        use std::sync::atomic::Ordering;
        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
        most.fetch_max(now, Ordering::SeqCst);
        std::thread::yield_now();
        running.fetch_sub(1, Ordering::SeqCst);
    }

    #[test]
    fn no_more_threads_are_at_work_at_once_than_the_limit() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // The limit is the process's: the other tests of this binary run
        // under it too, which only makes this one's count smaller.
        super::limit_threads_at_work(2);
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<u64> = (0..64).collect();
        // Files in parallel, each with kernels in parallel, as a run has.
        parallel_map(&items[..8], 4, 1 << 20, |_| {
            parallel_map(&items[..8], 4, 1 << 20, |_| {
                let _slot = super::CoreSlot::take();
                at_work(&running, &most);
            })
        });
        assert!(most.load(Ordering::SeqCst) <= 2);
        assert!(most.load(Ordering::SeqCst) >= 1);
    }

    #[test]
    fn nested_work_on_an_analysis_stack_neither_waits_forever_nor_exceeds_the_limit() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        super::limit_threads_at_work(2);
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<u64> = (0..6).collect();
        // A run's shape: files at work, each lowering on a deep stack of
        // its own and spreading its kernels over workers, all holding
        // slots, more files than slots.
        let done = parallel_map(&items, 4, 1 << 20, |_| {
            super::on_analysis_stack("test", || {
                parallel_map(&items, 3, 1 << 20, |x| {
                    at_work(&running, &most);
                    *x
                })
                .iter()
                .sum::<u64>()
            })
        });
        assert_eq!(done, vec![Some(15); 6]);
        assert!(most.load(Ordering::SeqCst) <= 2);
    }

    #[test]
    fn a_panic_reaches_the_caller_with_its_message() {
        let items = [1, 2, 3];
        let caught = std::panic::catch_unwind(|| {
            parallel_map(&items, 2, 1 << 20, |&x| {
                if x == 2 {
                    panic!("item two");
                }
                x
            })
        })
        .expect_err("the panic reaches the caller");
        assert_eq!(caught.downcast_ref::<&str>(), Some(&"item two"));
    }
}
