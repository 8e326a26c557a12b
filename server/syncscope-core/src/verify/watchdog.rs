//! One watchdog thread that interrupts Z3 checks past their deadline or
//! whose analysis was cancelled.
//!
//! Why not Z3's own `timeout` parameter: in the system's Z3 (4.8.x) every
//! timed check arms a `scoped_timer`, and with several analysis threads we
//! saw a check block forever on a timer mutex. `Z3_interrupt` from one
//! thread of ours has no such state, and it lets a cancelled analysis (an
//! edit made it obsolete) stop the solver at once instead of at the next
//! query.
//!
//! A due watch is interrupted again at every poll until its guard is
//! dropped, not once: libz3 4.8 forgets an interrupt that arrives before
//! the check has set up its resource limit (`Z3_solver_check` resets the
//! context's cancel state when it starts), so a single interrupt fired
//! between [`watch`] and the start of the check was lost, and that check
//! then ran to its full rlimit (tens of millions of units, tens of seconds for a
//! nonlinear query on a busy machine) with nothing left to stop it. Under
//! a small kernel budget every check started after the budget ran out hit
//! this window (`cli_contract::strictness_never_lets_unknown_or_not_verified_pass_silently`
//! once ran for over 20 minutes).

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
    /// Interrupted at least once (it is interrupted again at each poll
    /// until its guard is dropped: see the module's documentation).
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
        for w in state.watches.iter_mut() {
            // SAFETY: `cancel` points at an `AtomicBool` that outlives the
            // watch: the guard that owns the watch borrows it.
            let cancelled = w.cancel != 0
                && unsafe { &*(w.cancel as *const AtomicBool) }.load(Ordering::Relaxed);
            if w.fired || cancelled || now >= w.deadline {
                // SAFETY: the context is alive while its watch is
                // registered (the guard is dropped after the check returns,
                // and removing a watch takes this lock).
                if let Some(ctx) = std::ptr::NonNull::new(w.ctx as *mut _) {
                    unsafe { z3_sys::Z3_interrupt(ctx) };
                }
                w.fired = true;
            }
        }
        // A fired watch is polled too: its check may not have started when
        // it was interrupted.
        let wait = state
            .watches
            .iter()
            .map(|w| match w.fired {
                true => POLL,
                false => w.deadline.saturating_duration_since(now).min(POLL),
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A check whose watch fired before the check started is still
    /// stopped by the watchdog, not by its (large) resource limit: Z3
    /// forgets an interrupt that arrives before the check starts.
    #[test]
    fn a_watch_due_before_its_check_starts_still_stops_the_check() {
        use z3::{Params, SatResult, Solver};
        // Nonlinear, no quick answer: without an interrupt it runs to the
        // rlimit (seconds).
        let text =
            "(declare-const x Int)(declare-const y Int)(declare-const n Int)(declare-const m Int)\
            (assert (= (+ (* x x x) (* y y y) (* n n n)) (+ (* y y y x) (* 7 n m x))))\
            (assert (> x 1))(assert (> y 1))(assert (> n 1))(assert (> m 1))(assert (distinct x y))\
            (assert (> (* x y n m) 100000))";
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("rlimit", 50_000_000);
        solver.set_params(&params);
        crate::verify::smt::load(&solver, text).expect("query");
        let cancel = AtomicBool::new(true);
        let guard = watch(
            z3::Context::thread_local().get_z3_context(),
            Instant::now(),
            Some(&cancel),
        );
        // Let the watchdog fire before the check starts (the interrupt it
        // sends now is the one Z3 forgets).
        let fired = || {
            let (lock, _) = shared();
            let state = lock.lock().unwrap_or_else(|e| e.into_inner());
            state.watches.iter().any(|w| w.id == guard.id && w.fired)
        };
        while !fired() {
            std::thread::yield_now();
        }
        let result = solver.check();
        drop(guard);
        assert_eq!(result, SatResult::Unknown);
        let reason = solver.get_reason_unknown().unwrap_or_default();
        assert!(
            matches!(reason.as_str(), "canceled" | "interrupted"),
            "stopped by the watchdog, not by the rlimit: {reason}"
        );
    }
}
