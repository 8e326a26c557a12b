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
