//! A kernel's verification budget in Z3 resource units (`rlimit`), not in
//! time: the units every check of the kernel spends are added up, and once
//! the kernel's allowance is spent its remaining queries are `unknown`. Z3
//! counts the same units for the same query on an idle machine and on a
//! loaded one, so the verdict of a kernel at its budget does not depend on
//! the load (the wall-clock budget, `Options::kernel_budget_ms`, is only
//! the safety net beyond it). Must not decide anything but how much is
//! left: the solver (`smt`) charges it and stops at it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How many full per-query resource limits (`Options::rlimit`) one kernel
/// may spend in all: one, so that the first query still gets its whole
/// limit. The queries of a kernel that verifies take a small part of one
/// limit each (the slowest kernels of NVIDIA's samples that finish spend a
/// few million units in all); a kernel whose queries run long stops after
/// the units one query may spend, whatever the machine's load.
pub(crate) const KERNEL_QUERY_LIMITS: u64 = 1;

/// The resource units the race search of a kernel may still spend once it
/// has found a definite race: the kernel is racy whatever the rest of its
/// pairs answer, and each further pair costs about as much as the first
/// (NVIDIA's merge sorts spent 20 to 30 million units on pairs after the
/// first, a minute on a loaded machine). What is found within them is
/// reported as before; the search then stops, and says so. The search
/// after a first race is a fifth of the units of NVIDIA's whole samples;
/// one million spared 12 of their 160 million but left races of the
/// corpus's asynchronous-copy pipelines and tile blends unfound, or
/// `unknown`.
pub(crate) const AFTER_RACE_UNITS: u64 = 2_000_000;

/// The resource units a kernel that is `not-verified` before any query (its
/// model has a part it cannot represent) may spend in all. Its verdict and
/// the findings naming the parts are known without the solver; its queries
/// can only make it worse, and truer: a definite race or divergence
/// elsewhere in it. Such a race in the kernels people write is found in a
/// few thousand units (or with no query at all, by two threads of a small
/// launch), and within a million or two behind an asynchronous-copy
/// pipeline (200,000 units lost the ring-buffer races of NVIDIA's
/// multi-stage `memcpy_async` GEMMs, labelled racy); past this allowance the search stops and the kernel stays the
/// `not-verified` it already was, instead of spending a whole kernel budget
/// on pairs whose answer changes nothing (tensor-core GEMMs with
/// asynchronous copies spent seconds so).
pub(crate) const NOT_VERIFIED_UNITS: u64 = 2_000_000;

/// The resource units one kernel may still spend (shared by every check of
/// the kernel; atomic only so that a `&` of it can travel in the solver's
/// configuration).
#[derive(Debug, Default)]
pub(crate) struct KernelBudget {
    /// 0: no limit.
    limit: u64,
    spent: AtomicU64,
    /// The units the race search may spend in all, once a definite race
    /// is found (`u64::MAX`: none found, no such limit).
    race_limit: AtomicU64,
    /// The units the race search may spend after its first definite race:
    /// [`AFTER_RACE_UNITS`], or none for a kernel already racy under an
    /// earlier launch ([`KernelBudget::stopping_at_first_race`]).
    after_race: u64,
    /// Some check found the after-race allowance spent: the race search
    /// stopped short of pairs it would have asked.
    race_search_cut: AtomicBool,
}

impl KernelBudget {
    /// The budget of one kernel verified with the per-query limit `rlimit`
    /// (0, no per-query limit, is no kernel limit either).
    pub(crate) fn for_rlimit(rlimit: u32) -> KernelBudget {
        KernelBudget {
            limit: u64::from(rlimit) * KERNEL_QUERY_LIMITS,
            spent: AtomicU64::new(0),
            race_limit: AtomicU64::new(u64::MAX),
            after_race: AFTER_RACE_UNITS,
            race_search_cut: AtomicBool::new(false),
        }
    }

    /// The same budget, whose race search stops at its first definite
    /// race: for a kernel found racy under an earlier launch of the same
    /// analysis, whose verdict this launch cannot change (the merged
    /// report takes the worst), so that each further launch asks only
    /// until it shows a race of its own (NVIDIA's Mandelbrot kernel spent
    /// its whole after-race allowance again under its second launch).
    pub(crate) fn stopping_at_first_race(self) -> KernelBudget {
        KernelBudget {
            after_race: 0,
            ..self
        }
    }

    /// The units the race search may spend after its first definite race.
    pub(crate) fn after_race(&self) -> u64 {
        self.after_race
    }

    /// The budget of a kernel already `not-verified` before any query:
    /// [`NOT_VERIFIED_UNITS`], or less when the kernel budget is less (no
    /// limit stays no limit).
    pub(crate) fn for_decided_kernel(rlimit: u32) -> KernelBudget {
        let full = KernelBudget::for_rlimit(rlimit);
        KernelBudget {
            limit: match full.limit {
                0 => 0,
                l => l.min(NOT_VERIFIED_UNITS),
            },
            ..full
        }
    }

    /// The units left, `None` when there is no limit.
    pub(crate) fn remaining(&self) -> Option<u64> {
        (self.limit != 0).then(|| {
            self.limit
                .min(self.race_limit.load(Ordering::Relaxed))
                .saturating_sub(self.spent.load(Ordering::Relaxed))
        })
    }

    /// A definite race is found: the race search may spend
    /// [`KernelBudget::after_race`] more (counted from the first such race;
    /// a kernel with no limit gets none).
    pub(crate) fn race_found(&self) {
        let cap = self.spent().saturating_add(self.after_race);
        // Profiling aid beside `smt::log_query`'s lines: the units spent
        // before the kernel's first definite race.
        if std::env::var_os("SYNCSCOPE_QUERY_LOG").is_some()
            && self.race_limit.load(Ordering::Relaxed) == u64::MAX
        {
            eprintln!("syncscope-first-race {}", self.spent());
        }
        let _ =
            self.race_limit
                .compare_exchange(u64::MAX, cap, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The race search is over: the checks after it get what is left of
    /// the kernel's own budget. Whether the search stopped at its limit
    /// after a race (some check found it spent: a search that had no pair
    /// left to ask did not stop short).
    pub(crate) fn end_race_search(&self) -> bool {
        let cap = self.race_limit.swap(u64::MAX, Ordering::Relaxed);
        let cut = self.race_search_cut.swap(false, Ordering::Relaxed);
        self.limit != 0 && cap != u64::MAX && cut
    }

    /// Every unit is spent: no check may start.
    pub(crate) fn spent_all(&self) -> bool {
        let spent = self.remaining() == Some(0);
        if spent && self.race_limit.load(Ordering::Relaxed) != u64::MAX {
            self.race_search_cut.store(true, Ordering::Relaxed);
        }
        spent
    }

    /// The per-check resource limit: the query's own, or what is left of
    /// the kernel's when that is less (never 0, which Z3 reads as none).
    pub(crate) fn cap(&self, rlimit: u32) -> u32 {
        match self.remaining() {
            Some(left) if rlimit == 0 || left < u64::from(rlimit) => left.max(1) as u32,
            _ => rlimit,
        }
    }

    pub(crate) fn charge(&self, units: u64) {
        self.spent.fetch_add(units, Ordering::Relaxed);
    }

    /// The units spent so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// The units the kernel may spend in all (0: no limit).
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }
}

/// The units between two readings of the context's count (see
/// `z3_solver::Solver::units_counted`; a 32-bit count
/// may have wrapped once in between).
pub(crate) fn units_between(before: u64, after: u64) -> u64 {
    if after >= before {
        after - before
    } else {
        (after + (1 << 32)).saturating_sub(before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_gets_what_is_left_of_the_kernel_budget() {
        let b = KernelBudget::for_rlimit(100);
        assert_eq!(b.cap(100), 100);
        b.charge(50);
        assert_eq!(b.cap(100), 50);
        assert_eq!(b.cap(20), 20);
        b.charge(60);
        assert!(b.spent_all());
        assert_eq!(b.cap(100), 1);
        let none = KernelBudget::for_rlimit(0);
        none.charge(u64::MAX / 2);
        assert!(!none.spent_all());
        assert_eq!(none.cap(0), 0);
    }

    #[test]
    fn a_race_leaves_the_search_a_short_allowance_then_the_rest() {
        let b = KernelBudget::for_rlimit(10 * AFTER_RACE_UNITS as u32);
        b.charge(100);
        b.race_found();
        assert_eq!(b.remaining(), Some(AFTER_RACE_UNITS));
        // A later race does not move the limit.
        b.charge(AFTER_RACE_UNITS / 2);
        b.race_found();
        assert_eq!(b.remaining(), Some(AFTER_RACE_UNITS / 2));
        b.charge(AFTER_RACE_UNITS);
        assert!(b.spent_all());
        // After the search, the kernel's own budget again.
        assert!(b.end_race_search());
        assert_eq!(
            b.remaining(),
            Some(10 * AFTER_RACE_UNITS - AFTER_RACE_UNITS * 3 / 2 - 100)
        );
        assert!(!b.end_race_search());
        // No limit: none after a race either.
        let none = KernelBudget::for_rlimit(0);
        none.race_found();
        none.charge(AFTER_RACE_UNITS * 2);
        assert_eq!(none.remaining(), None);
        assert!(!none.end_race_search());
    }

    #[test]
    fn a_kernel_racy_under_an_earlier_launch_stops_at_its_first_race() {
        let b = KernelBudget::for_rlimit(1_000_000).stopping_at_first_race();
        assert_eq!(b.after_race(), 0);
        b.charge(300);
        assert_eq!(b.remaining(), Some(1_000_000 - 300));
        b.race_found();
        // No check asked after the race: the search did not stop short.
        assert!(!b.end_race_search());
        assert_eq!(b.remaining(), Some(1_000_000 - 300));
        let c = KernelBudget::for_rlimit(1_000_000).stopping_at_first_race();
        c.race_found();
        assert!(c.spent_all(), "the next check of the search is refused");
        assert!(c.end_race_search());
        assert!(!c.spent_all());
    }

    #[test]
    fn a_kernel_decided_before_its_queries_gets_the_small_allowance() {
        let b = KernelBudget::for_decided_kernel(50_000_000);
        assert_eq!(b.limit(), NOT_VERIFIED_UNITS);
        assert_eq!(b.cap(50_000_000), NOT_VERIFIED_UNITS as u32);
        let small = KernelBudget::for_decided_kernel(1_000);
        assert_eq!(small.limit(), 1_000);
        assert_eq!(KernelBudget::for_decided_kernel(0).limit(), 0);
    }

    #[test]
    fn a_wrapped_count_still_measures_the_check() {
        assert_eq!(units_between(10, 25), 15);
        assert_eq!(units_between(u64::from(u32::MAX) - 4, 5), 10);
    }

    #[test]
    fn the_count_grows_with_the_work_of_a_check() {
        let solver = crate::verify::z3_solver::Solver::incremental_core();
        let before = solver
            .units_counted()
            .expect("Z3 reports its resource count");
        crate::verify::smt::load(
            &solver,
            "(declare-const x Int)(declare-const y Int)\n\
             (assert (= (+ (* x x) (* y y)) 25))(assert (> x 0))(assert (> y 0))",
        )
        .expect("the query reads");
        assert_eq!(solver.check(), z3::SatResult::Sat);
        let after = solver
            .units_counted()
            .expect("Z3 reports its resource count");
        assert!(units_between(before, after) > 0);
    }
}
