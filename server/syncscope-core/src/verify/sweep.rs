//! What the concrete collision searches (`collisions`) of one kernel
//! reuse between queries: the threads of each launch, and the most recent
//! instances' evaluations. Kept apart from the searches because the
//! kernel's shared context (`context`) owns the cache, and the searches
//! depend on that context.

use super::replay::{eval_expr, LaunchShape};
use crate::model::*;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// How many evaluated instances [`SweepCache`] keeps (an instance between
/// two barriers is in the redundancy checks of both).
pub(super) const RECENT: usize = 8;

/// What the searches of one kernel reuse: the threads of each launch, and
/// the most recent instances' evaluations.
#[derive(Default)]
pub(crate) struct SweepCache {
    pub(super) setups: RefCell<Setups>,
    pub(super) recent: RefCell<VecDeque<(ReachKey, Rc<Vec<Reach>>)>>,
}

/// Each launch's threads, by launch and whether the threads are of
/// different blocks (`None`: the assumptions leave it to the solver).
pub(super) type Setups = HashMap<(Launch, bool), Option<Rc<Setup>>>;

/// An instance's access, the launch, whether the threads are of
/// different blocks.
pub(super) type ReachKey = (usize, Launch, bool);

/// A launch's threads, in order, and which of them the assumptions allow.
pub(super) struct Setup {
    pub(super) shape: LaunchShape,
    pub(super) threads: Vec<Thread>,
    pub(super) allowed: Vec<bool>,
}

impl Setup {
    /// `e` for thread `th` (its identity and the launch sizes; any other
    /// value is not known).
    pub(super) fn eval(&self, e: &Expr, th: &Thread, bitvector: bool) -> Option<i64> {
        let lookup = |v: &Var| self.shape.builtin(v.kind, th.tid, th.bid);
        eval_expr(e, &lookup, bitvector)
    }
}

/// Where an instance is for one thread.
#[derive(Clone, Copy)]
pub(super) enum Reach {
    At(i64),
    Off,
    Unknown,
}

/// One thread of the small launch.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Thread {
    pub(super) tid: [i64; 3],
    pub(super) bid: [i64; 3],
}

/// The launch a search runs on: the small launch of the solver's concrete
/// first try (blocks of 64 threads), or the largest block the kernel
/// allows along x (neighbours 64 or more apart meet only there).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Launch {
    Small,
    Large,
}
