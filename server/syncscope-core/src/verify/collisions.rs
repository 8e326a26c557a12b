//! Concrete collisions: the access instances of a race query evaluated for
//! every thread of a small launch, without Z3. Two threads that meet on an
//! element through a conflicting pair of instances are a model of the
//! grouped race query (the launch is one the query allows; guards, indices
//! and assumptions are evaluated with the semantics the replay uses), so a
//! collision is a racing pair to confirm by replay like a solver's model.
//! Finding none proves nothing: the solver decides what is left. Must not
//! report findings.

use super::context::*;
use super::intervals::Instance;
use super::replay::{linear, LaunchShape};
use super::smt::LaunchEnv;
pub(super) use super::sweep::Launch;
use super::sweep::{Reach, Setup, Thread, RECENT};
use super::witness::small_launch;
use crate::model::*;
use crate::symbols;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// At most this many (instance, thread) evaluations per group: beyond it
/// the solver alone decides.
const MAX_EVALUATIONS: usize = 1 << 21;

/// Two threads of the small launch that collide through two instances.
pub(super) struct Collision {
    /// Positions in the group of thread 1's and thread 2's instance
    /// (`first <= second`, as the query's selectors).
    pub first: usize,
    pub second: usize,
    /// A model of the query: launch sizes, the two threads' identities,
    /// `index` and the selectors, named as the solver names them.
    pub values: Vec<(String, i64)>,
}

impl KernelContext<'_> {
    /// Whether two threads related by `rel` collide through some
    /// conflicting pair of `insts` at the small launch.
    pub(super) fn concrete_collision(&self, insts: &[&Instance], rel: Relation) -> bool {
        !self
            .collisions_up_to(insts, rel, false, 1, Launch::Small)
            .is_empty()
    }

    /// Every conflicting pair of `insts` (one array, one interval) that two
    /// threads related by `rel` collide through at the small launch, each
    /// with its first collision (smallest index, then threads in launch
    /// order), in the order of the pairs. With `separated`, only pairs of
    /// instances the skipped barrier separated (different tags: the
    /// redundancy query's constraint). Warp relations are left to the
    /// solver.
    pub(super) fn concrete_collisions(
        &self,
        insts: &[&Instance],
        rel: Relation,
        separated: bool,
        launch: Launch,
    ) -> Vec<Collision> {
        self.collisions_up_to(insts, rel, separated, usize::MAX, launch)
    }

    /// [`Self::concrete_collisions`], the first `limit` pairs found.
    pub(super) fn collisions_up_to(
        &self,
        insts: &[&Instance],
        rel: Relation,
        separated: bool,
        limit: usize,
        launch: Launch,
    ) -> Vec<Collision> {
        if !matches!(rel, Relation::SameBlock | Relation::CrossBlock) {
            return Vec::new();
        }
        // Between blocks, a last-block pattern orders accesses through
        // tickets the concrete search does not draw (`last_block.rs`): the
        // solver decides those queries.
        if rel.cross_block() && !self.kernel.last_blocks.is_empty() {
            return Vec::new();
        }
        let kind = launch;
        let small = small_launch(&self.env).unwrap_or_else(|| self.env.clone());
        let launch = match launch {
            Launch::Small => small,
            Launch::Large => match large_launch(&small, &self.env) {
                Some(l) => l,
                None => return Vec::new(),
            },
        };
        let Some(setup) = self.sweep_setup(&launch, rel, kind) else {
            return Vec::new();
        };
        let Setup {
            shape: LaunchShape { block, grid },
            ref threads,
            ..
        } = *setup;
        if threads.len().saturating_mul(insts.len()) > MAX_EVALUATIONS {
            return Vec::new();
        }
        let kinds: Vec<AccessKind> = insts
            .iter()
            .map(|i| self.accesses[&i.access].kind)
            .collect();
        let conflict = |i: usize, j: usize| {
            (kinds[i].writes() || kinds[j].writes())
                && !(kinds[i] == AccessKind::Atomic && kinds[j] == AccessKind::Atomic)
                && (!separated || insts[i].tag != insts[j].tag)
        };
        let related = |a: &Thread, b: &Thread| {
            if rel.cross_block() {
                a.bid != b.bid
            } else {
                a.tid != b.tid
            }
        };
        // Instances in order, threads in launch order: each new (instance,
        // thread) meets the earlier ones at its index. Per index, each
        // instance that reached it with its first thread and the first
        // thread related to that one (whichever thread comes next, one of
        // the two is related to it), and separately the instances that
        // write (a read meets only those).
        #[derive(Default)]
        struct Slot {
            all: Vec<(usize, usize, Option<usize>)>,
            writers: Vec<usize>,
        }
        let mut at: HashMap<i64, Slot> = HashMap::new();
        let mut found: BTreeMap<(usize, usize), Collision> = BTreeMap::new();
        for (n, inst) in insts.iter().enumerate() {
            let reach = self.reach(inst, &setup, kind, rel);
            for (t, th) in threads.iter().enumerate() {
                let x = match reach[t] {
                    Reach::Off => continue,
                    Reach::At(x) => x,
                    // Not closed over the launch (a parameter, a value
                    // read from memory, a loop counter): the solver's.
                    Reach::Unknown => break,
                };
                let slot = at.entry(x).or_default();
                let writes = kinds[n].writes();
                let count = if writes {
                    slot.all.len()
                } else {
                    slot.writers.len()
                };
                for g in 0..count {
                    let (m, first, second) = slot.all[if writes { g } else { slot.writers[g] }];
                    if found.contains_key(&(m, n)) || !conflict(m, n) {
                        continue;
                    }
                    let Some(u) = std::iter::once(first)
                        .chain(second)
                        .find(|&u| related(&threads[u], th))
                    else {
                        continue;
                    };
                    let values =
                        self.collision_model(rel, (&threads[u], th), (block, grid), x, (m, n));
                    found.insert(
                        (m, n),
                        Collision {
                            first: m,
                            second: n,
                            values,
                        },
                    );
                    if found.len() >= limit {
                        return found.into_values().collect();
                    }
                }
                match slot.all.last_mut() {
                    Some((m, first, second)) if *m == n => {
                        if second.is_none() && related(&threads[*first], th) {
                            *second = Some(t);
                        }
                    }
                    _ => {
                        if writes {
                            slot.writers.push(slot.all.len());
                        }
                        slot.all.push((n, t, None));
                    }
                }
            }
        }
        found.into_values().collect()
    }

    /// The threads of `launch` for `rel` and which of them the kernel's
    /// assumptions allow; `None` when an assumption mentions anything but
    /// the launch (the solver decides then). Made once per launch and
    /// relation.
    fn sweep_setup(&self, launch: &LaunchEnv, rel: Relation, kind: Launch) -> Option<Rc<Setup>> {
        let key = (kind, rel.cross_block());
        if let Some(known) = self.sweep.setups.borrow().get(&key) {
            return known.clone();
        }
        let made = (|| {
            let mut block = [1i64; 3];
            let mut grid = [1i64; 3];
            for d in 0..3u8 {
                block[d as usize] = launch.fixed(VarKind::BlockDim(d))?;
                grid[d as usize] = launch.fixed(VarKind::GridDim(d))?;
            }
            // Thread 1 and thread 2 of a same-block pair share block 0; a
            // cross-block pair takes its threads from the first two blocks.
            let blocks: Vec<[i64; 3]> = if rel.cross_block() {
                linear(grid).take(2).collect()
            } else {
                vec![[0; 3]]
            };
            if blocks.len() < 2 && rel.cross_block() {
                return None;
            }
            let threads: Vec<Thread> = blocks
                .iter()
                .flat_map(|bid| linear(block).map(move |tid| Thread { tid, bid: *bid }))
                .collect();
            let mut setup = Setup {
                shape: LaunchShape { block, grid },
                threads,
                allowed: Vec::new(),
            };
            let mut allowed = Vec::new();
            for th in &setup.threads {
                let mut ok = true;
                for a in &self.kernel.assumptions {
                    match setup.eval(a, th, self.env.bitvector) {
                        Some(0) => ok = false,
                        Some(_) => {}
                        None => return None,
                    }
                }
                allowed.push(ok);
            }
            setup.allowed = allowed;
            Some(Rc::new(setup))
        })();
        self.sweep.setups.borrow_mut().insert(key, made.clone());
        made
    }

    /// Where `inst` is for each thread of `setup`: its index, off (guard
    /// false, or a thread the assumptions exclude), or not known (from
    /// there on). An instance outside loops is the same in every interval
    /// it is in: its last few evaluations are kept.
    fn reach(&self, inst: &Instance, setup: &Setup, kind: Launch, rel: Relation) -> Rc<Vec<Reach>> {
        let key = (inst.access, kind, rel.cross_block());
        let plain = inst.subst.is_empty() && inst.extra.is_empty();
        if plain {
            if let Some((_, r)) = self.sweep.recent.borrow().iter().find(|(k, _)| *k == key) {
                return r.clone();
            }
        }
        let a = self.accesses[&inst.access];
        let bind = |e: &Expr| {
            if inst.subst.is_empty() {
                e.clone()
            } else {
                e.subst(&mut |v: &Var| {
                    inst.subst
                        .iter()
                        .find(|(c, _)| c == v)
                        .map(|(_, x)| x.clone())
                })
            }
        };
        let guard = bind(&Expr::all(
            std::iter::once(a.guard.clone()).chain(inst.extra.iter().cloned()),
        ));
        let index = bind(&a.index);
        let bv = self.env.bitvector;
        let mut out = Vec::with_capacity(setup.threads.len());
        for (t, th) in setup.threads.iter().enumerate() {
            out.push(if !setup.allowed[t] {
                Reach::Off
            } else {
                match (setup.eval(&guard, th, bv), setup.eval(&index, th, bv)) {
                    (Some(0), _) => Reach::Off,
                    (Some(_), Some(x)) => Reach::At(x),
                    _ => Reach::Unknown,
                }
            });
        }
        let out = Rc::new(out);
        if plain {
            let mut recent = self.sweep.recent.borrow_mut();
            if recent.len() >= RECENT {
                recent.pop_front();
            }
            recent.push_back((key, out.clone()));
        }
        out
    }

    /// The collision as the solver's model would name it.
    fn collision_model(
        &self,
        rel: Relation,
        (one, two): (&Thread, &Thread),
        (block, grid): ([i64; 3], [i64; 3]),
        index: i64,
        (i, j): (usize, usize),
    ) -> Vec<(String, i64)> {
        let mut values = Vec::new();
        for (d, name) in DIMS.iter().enumerate() {
            values.push((format!("blockDim.{name}"), block[d]));
            values.push((format!("gridDim.{name}"), grid[d]));
        }
        for (t, th) in [(1u8, one), (2, two)] {
            for d in 0..3 {
                values.push((symbols::thread_idx(d, t), th.tid[d]));
                if rel.cross_block() {
                    values.push((symbols::block_idx(d, t), th.bid[d]));
                }
            }
        }
        if !rel.cross_block() {
            for (d, name) in DIMS.iter().enumerate() {
                values.push((format!("blockIdx.{name}"), one.bid[d]));
            }
        }
        values.push(("index".to_string(), index));
        values.push((symbols::selector(1), i as i64));
        values.push((symbols::selector(2), j as i64));
        values
    }
}

/// The launch a search runs on: the small launch of the solver's concrete
/// `small` with a symbolic `blockDim.x` as large as the launch allows, or
/// `None` when that is no larger.
fn large_launch(small: &LaunchEnv, env: &LaunchEnv) -> Option<LaunchEnv> {
    if env.fixed(VarKind::BlockDim(0)).is_some() {
        return None;
    }
    let mut block = small.block_dim?;
    let limit = env.max_threads.unwrap_or(1024).clamp(1, 1024) as u32;
    let x = limit / (block[1] * block[2]).max(1);
    if x <= block[0] {
        return None;
    }
    block[0] = x;
    Some(LaunchEnv {
        block_dim: Some(block),
        ..small.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::intervals::intervals;

    /// Every collision is a model of its group's race query: each
    /// assertion of the query holds under its values.
    #[test]
    fn every_collision_satisfies_its_race_query() {
        let options = crate::options::Options::default();
        let mut checked = 0;
        for k in crate::verify::corpus_kernels() {
            let budget = crate::verify::budget::KernelBudget::for_rlimit(options.rlimit);
            let v = KernelContext::new(&k, &options, &crate::cache::NoCache, None, &budget);
            for rel in v.relations.clone() {
                for iv in intervals(&k, rel.level(), None, &mut |_| true) {
                    let mut by_array: BTreeMap<ArrayId, Vec<Instance>> = BTreeMap::new();
                    for inst in iv {
                        let a = v.accesses[&inst.access];
                        if !(rel.cross_block() && k.arrays[a.array].space == MemorySpace::Shared) {
                            by_array.entry(a.array).or_default().push(inst);
                        }
                    }
                    for group in by_array.values() {
                        let Some(q) = v.group_query(group, rel, None) else {
                            continue;
                        };
                        for launch in [Launch::Small, Launch::Large] {
                            for c in v.concrete_collisions(&q.insts, rel, false, launch) {
                                for e in &q.base {
                                    // The tickets and flag results the query
                                    // keeps apart are free in a collision
                                    // (its two instances mention none:
                                    // those are not closed over the launch),
                                    // and values that keep them apart exist.
                                    let draws_only = {
                                        let mut only = true;
                                        e.for_each_var(&mut |x| {
                                            only &= crate::symbols::ticket_counter(&x.name)
                                                .is_some()
                                                || crate::symbols::winner_flag(&x.name).is_some();
                                        });
                                        only
                                    };
                                    if draws_only && v.eval_model(e, &c.values).is_none() {
                                        continue;
                                    }
                                    assert_eq!(
                                        v.eval_model(e, &c.values),
                                        Some(1),
                                        "{}: {e} under {:?}",
                                        k.name,
                                        c.values
                                    );
                                }
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 50, "{checked} collisions checked");
    }
}
