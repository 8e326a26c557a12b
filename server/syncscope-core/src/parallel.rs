//! Independent work spread over the cores: the kernels of a file are
//! lowered (`frontend::lower_file`) and verified (`verify::verify_kernels`)
//! this way.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

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
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    stack: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
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
                    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
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
            None => f(item),
        })
        .collect()
}

/// Like [`parallel_map`], on persistent worker threads, which run
/// `between` after each call's work, once that call's results are handed
/// over (`verify` makes the Z3 context of the next kernel there: making one
/// was a fifth of a small kernel's time). A worker takes an idle thread of
/// the pool or starts one of `stack` bytes (threads are never shared by
/// two calls at once, so calls may nest or run side by side); a thread
/// retires after [`JOBS_PER_THREAD`] calls. The calling thread only waits;
/// an item no worker did is done on it.
pub(crate) fn pooled_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    stack: usize,
    between: fn(),
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<std::thread::Result<R>>>> =
        items.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
        if let Ok(mut slot) = slots[i].lock() {
            *slot = Some(out);
        }
    };
    {
        let latch = Arc::new(Latch::default());
        // Waits (also while unwinding) until every job handed out is done:
        // the jobs borrow this frame.
        let _wait = WaitOnDrop(latch.clone());
        for _ in 0..workers.max(1).min(items.len()) {
            let work = &work;
            let done = latch.clone();
            done.add();
            let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
                let _finished = FinishOnDrop(done);
                work();
            });
            // SAFETY: the job only borrows this frame, which `_wait` keeps
            // alive until the job has run (`_finished` is dropped last) or
            // was dropped unrun (`Job`'s drop finishes it then).
            let job: Box<dyn FnOnce() + Send + 'static> = unsafe { std::mem::transmute(job) };
            if submit(
                Job {
                    run: Some(job),
                    latch: latch.clone(),
                    between,
                },
                stack,
            )
            .is_err()
            {
                break;
            }
        }
    }
    slots
        .into_iter()
        .zip(items)
        .map(|(slot, item)| match slot.into_inner().ok().flatten() {
            Some(Ok(r)) => r,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => f(item),
        })
        .collect()
}

/// Calls a persistent thread serves before it retires.
pub(crate) const JOBS_PER_THREAD: usize = 500;

/// Counts the jobs of one [`pooled_map`] call still running.
#[derive(Default)]
struct Latch {
    left: Mutex<usize>,
    done: Condvar,
}

impl Latch {
    fn add(&self) {
        if let Ok(mut n) = self.left.lock() {
            *n += 1;
        }
    }
    fn finish(&self) {
        if let Ok(mut n) = self.left.lock() {
            *n = n.saturating_sub(1);
        }
        self.done.notify_all();
    }
    fn wait(&self) {
        let Ok(mut n) = self.left.lock() else { return };
        while *n > 0 {
            match self.done.wait(n) {
                Ok(g) => n = g,
                Err(_) => return,
            }
        }
    }
}

struct WaitOnDrop(Arc<Latch>);

/// Counts a job finished when it ends, also by unwinding.
struct FinishOnDrop(Arc<Latch>);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.finish();
    }
}

impl Drop for WaitOnDrop {
    fn drop(&mut self) {
        self.0.wait();
    }
}

/// A job for a pool thread; dropped without running, it still counts as
/// finished.
struct Job {
    run: Option<Box<dyn FnOnce() + Send + 'static>>,
    latch: Arc<Latch>,
    /// Run by the thread after the job.
    between: fn(),
}

impl Drop for Job {
    fn drop(&mut self) {
        if self.run.take().is_some() {
            self.latch.finish();
        }
    }
}

/// The idle pool threads, each by the sending end of its queue.
fn idle() -> &'static Mutex<Vec<mpsc::Sender<Job>>> {
    static IDLE: OnceLock<Mutex<Vec<mpsc::Sender<Job>>>> = OnceLock::new();
    IDLE.get_or_init(|| Mutex::new(Vec::new()))
}

/// Hands `job` to an idle pool thread, or to a new one; `Err` when no
/// thread could take it (the job was dropped, and counts as finished).
fn submit(mut job: Job, stack: usize) -> Result<(), ()> {
    loop {
        let Some(tx) = idle().lock().ok().and_then(|mut v| v.pop()) else {
            break;
        };
        match tx.send(job) {
            Ok(()) => return Ok(()),
            // That thread is gone: try the next.
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (tx, rx) = mpsc::channel::<Job>();
    tx.send(job).map_err(|_| ())?;
    std::thread::Builder::new()
        .name("syncscope-worker".into())
        .stack_size(stack)
        .spawn(move || {
            for served in 1..=JOBS_PER_THREAD {
                let Ok(mut job) = rx.recv() else { return };
                if let Some(run) = job.run.take() {
                    run();
                    (job.between)();
                }
                if served == JOBS_PER_THREAD {
                    // Retiring: not offered again.
                    return;
                }
                match idle().lock() {
                    Ok(mut v) => v.push(tx.clone()),
                    Err(_) => return,
                }
            }
        })
        .map(|_| ())
        .map_err(|_| ())
}

/// The text of a panic's payload (`panic!` with a message or a format).
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

#[cfg(test)]
mod tests {
    use super::{parallel_map, pooled_map};

    #[test]
    fn pooled_results_keep_item_order_and_panics_reach_the_caller() {
        let items: Vec<u64> = (0..100).collect();
        for workers in [0, 1, 3] {
            let out = pooled_map(&items, workers, 1 << 20, || {}, |x| x * x);
            assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        let caught = std::panic::catch_unwind(|| {
            pooled_map(
                &[1, 2, 3],
                2,
                1 << 20,
                || {},
                |&x| {
                    if x == 2 {
                        panic!("item two");
                    }
                    x
                },
            )
        })
        .expect_err("the panic reaches the caller");
        assert_eq!(caught.downcast_ref::<&str>(), Some(&"item two"));
    }

    #[test]
    fn pooled_threads_keep_their_state_between_calls() {
        thread_local! {
            static SEEN: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        // One worker, called twice in a row: the second call finds the
        // first call's thread-local state (the Z3 context of `verify`).
        let first = pooled_map(
            &[()],
            1,
            1 << 20,
            || {},
            |_| {
                SEEN.with(|s| {
                    s.set(s.get() + 1);
                    s.get()
                })
            },
        );
        let second = pooled_map(
            &[()],
            1,
            1 << 20,
            || {},
            |_| {
                SEEN.with(|s| {
                    s.set(s.get() + 1);
                    s.get()
                })
            },
        );
        assert!(first[0] >= 1);
        assert!(
            second[0] > 1,
            "no pool thread was reused (second call saw {})",
            second[0]
        );
    }

    #[test]
    fn pooled_calls_may_nest() {
        let outer: Vec<u64> = (0..4).collect();
        let out = pooled_map(
            &outer,
            4,
            1 << 20,
            || {},
            |&x| {
                let inner: Vec<u64> = (0..4).collect();
                pooled_map(&inner, 4, 1 << 20, || {}, |&y| x * 10 + y)
                    .into_iter()
                    .sum::<u64>()
            },
        );
        assert_eq!(out, vec![6, 46, 86, 126]);
    }

    #[test]
    fn results_keep_item_order_on_any_number_of_workers() {
        let items: Vec<u64> = (0..100).collect();
        for workers in [0, 1, 3, 16] {
            let out = parallel_map(&items, workers, 1 << 20, |x| x * x);
            assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
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
