//! One watchdog thread that interrupts Z3 checks past their deadline or
//! whose analysis was cancelled.
//!
//! Why not Z3's own `timeout` parameter: in the system's Z3 (4.8.x) every
//! timed check arms a `scoped_timer`, and with several analysis threads we
//! saw a check block forever on a timer mutex. `Z3_interrupt` from one
//! thread of ours has no such state, and it lets a cancelled analysis (an
//! edit made it obsolete) stop the solver at once instead of at the next
//! query.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Watch {
    id: u64,
    /// The `Z3_context` of the checking thread (its thread-local context).
    ctx: usize,
    deadline: Instant,
    /// Address of the analysis's cancel flag, or 0.
    cancel: usize,
    fired: bool,
}

#[derive(Default)]
struct State {
    next: u64,
    watches: Vec<Watch>,
}

fn shared() -> &'static (Mutex<State>, Condvar) {
    static SHARED: OnceLock<(Mutex<State>, Condvar)> = OnceLock::new();
    SHARED.get_or_init(|| {
        // If the thread cannot start, checks simply run to their rlimit.
        let _ = std::thread::Builder::new()
            .name("syncscope-z3-watchdog".into())
            .spawn(run);
        (Mutex::new(State::default()), Condvar::new())
    })
}

/// How often cancel flags are polled while a check runs.
const POLL: Duration = Duration::from_millis(5);

fn run() {
    let (lock, cv) = shared();
    let Ok(mut state) = lock.lock() else { return };
    loop {
        let now = Instant::now();
        for w in state.watches.iter_mut().filter(|w| !w.fired) {
            // SAFETY: `cancel` points at an `AtomicBool` that outlives the
            // watch: the guard that owns the watch borrows it.
            let cancelled = w.cancel != 0
                && unsafe { &*(w.cancel as *const AtomicBool) }.load(Ordering::Relaxed);
            if cancelled || now >= w.deadline {
                // SAFETY: the context is alive while its watch is
                // registered (the guard is dropped after the check returns,
                // and removing a watch takes this lock).
                if let Some(ctx) = std::ptr::NonNull::new(w.ctx as *mut _) {
                    unsafe { z3_sys::Z3_interrupt(ctx) };
                }
                w.fired = true;
            }
        }
        let wait = state
            .watches
            .iter()
            .filter(|w| !w.fired)
            .map(|w| w.deadline.saturating_duration_since(now).min(POLL))
            .min();
        state = match wait {
            None => match cv.wait(state) {
                Ok(s) => s,
                Err(_) => return,
            },
            Some(d) => match cv.wait_timeout(state, d) {
                Ok((s, _)) => s,
                Err(_) => return,
            },
        };
    }
}

/// Keeps a check watched until dropped.
pub(crate) struct Guard<'a> {
    id: u64,
    _cancel: std::marker::PhantomData<&'a AtomicBool>,
}

/// Watches the check about to run on `ctx`: it is interrupted at
/// `deadline` or as soon as `cancel` is set.
pub(crate) fn watch<'a>(
    ctx: z3_sys::Z3_context,
    deadline: Instant,
    cancel: Option<&'a AtomicBool>,
) -> Guard<'a> {
    let (lock, cv) = shared();
    let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
    state.next += 1;
    let id = state.next;
    state.watches.push(Watch {
        id,
        ctx: ctx.as_ptr() as usize,
        deadline,
        cancel: cancel.map(|c| c as *const AtomicBool as usize).unwrap_or(0),
        fired: false,
    });
    cv.notify_one();
    Guard {
        id,
        _cancel: std::marker::PhantomData,
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let (lock, _) = shared();
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        state.watches.retain(|w| w.id != self.id);
    }
}
