//! Asynchronous copies across loop iterations and the branches of a
//! conditional. A copy a loop iteration leaves in flight stands for the
//! one the previous iteration left: the next iteration must complete it
//! (on its own path) before its first barrier, which the operations the
//! body makes before that barrier (`Op`, logged per loop) decide, else
//! the loop is `not-verified`; a pipeline must not hold more stages at the
//! end of an iteration than at its start. After a conditional a copy is
//! in flight when it is after either branch.

use super::*;

/// What the branches of a conditional each start from and end with: the
/// copies, whether each loop body being lowered is still before its first
/// barrier, the open split phase.
pub(in crate::frontend::lower) type BranchAsync = (AsyncState, Vec<bool>, Option<SplitPhase>);

/// An operation of a loop body before its first barrier, on the body's own
/// path (always executed by an iteration that gets there).
#[derive(Clone, Debug)]
pub(super) enum Op {
    Issue(Channel),
    Commit(Channel),
    Complete(Channel, Completion),
}

/// A loop body being lowered.
#[derive(Clone, Debug)]
pub(in crate::frontend::lower) struct LoopAsync {
    first_seq: usize,
    first_batch: usize,
    /// Commits not consumed when the body started.
    open_at_start: Vec<usize>,
    path_len: usize,
    /// The body's operations before its first barrier.
    log: Vec<Op>,
    /// No barrier yet: operations are still logged.
    recording: bool,
    /// Channels whose oldest stage the body waits for (`consumer_wait`).
    waits_oldest: Vec<Channel>,
    /// Copies in flight when the body started (they stand for the copies
    /// an earlier iteration leaves), and those of them still in flight at
    /// a first barrier of the body on some path.
    start: Vec<(usize, Channel)>,
    survivors: Vec<usize>,
    /// How many times the body runs at most, when the loop's condition
    /// decides it from its counter alone (`for (c = 0; c < 4; ++c)`).
    trips: Option<i64>,
}

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn log_op(&mut self, op: Op) {
        let len = self.path.len();
        for frame in &mut self.async_loops {
            if frame.path_len == len && frame.recording {
                frame.log.push(op.clone());
            }
        }
    }

    /// A barrier ends the recording of each loop body's operations, and
    /// the copies in flight at a body's start that are still in flight at
    /// it survive the body's first barrier.
    pub(super) fn loop_bodies_meet_barrier(&mut self) {
        let now: Vec<usize> = self.async_state.pending.iter().map(|p| p.seq).collect();
        for frame in &mut self.async_loops {
            if frame.recording {
                for (seq, _) in &frame.start {
                    if now.contains(seq) && !frame.survivors.contains(seq) {
                        frame.survivors.push(*seq);
                    }
                }
            }
            frame.recording = false;
        }
    }

    /// Each loop body being lowered waits for the oldest stage of `ch`.
    pub(super) fn loop_bodies_wait_oldest(&mut self, ch: Channel) {
        for frame in &mut self.async_loops {
            if !frame.waits_oldest.contains(&ch) {
                frame.waits_oldest.push(ch);
            }
        }
    }

    /// Before lowering a loop body.
    pub(in crate::frontend::lower) fn async_loop_enter(&mut self, counter: &Var, guard: &Expr) {
        let open_at_start = self
            .async_state
            .commits
            .iter()
            .filter(|c| !c.consumed)
            .map(|c| c.batch)
            .collect();
        self.async_loops.push(LoopAsync {
            first_seq: self.async_seq,
            first_batch: self.async_batch,
            open_at_start,
            path_len: self.path.len(),
            log: Vec::new(),
            recording: true,
            waits_oldest: Vec::new(),
            start: self
                .async_state
                .pending
                .iter()
                .map(|p| (p.seq, p.channel))
                .collect(),
            survivors: Vec::new(),
            trips: constant_trips(counter, guard),
        });
    }

    /// After lowering a loop body: the copies it leaves in flight must be
    /// what the next iteration completes before its first barrier, and a
    /// pipeline must not hold more stages at the end of an iteration than
    /// at its start (older stages the lowering of one iteration never saw).
    pub(in crate::frontend::lower) fn async_loop_exit(&mut self, node: Node) {
        let Some(frame) = self.async_loops.pop() else {
            return;
        };
        if self.dry > 0 {
            return;
        }
        // A transaction copy the body issued and no `expect_tx` of the
        // body counted stands, after the loop, for one copy per iteration:
        // the phase that expects it must count the bytes of all of them.
        for p in &mut self.async_state.pending {
            if p.seq >= frame.first_seq && p.tx && !p.expected {
                p.bytes = p.bytes.zip(frame.trips).and_then(|(b, n)| b.checked_mul(n));
            }
        }
        let left: Vec<PendingCopy> = self
            .async_state
            .pending
            .iter()
            .filter(|p| p.seq >= frame.first_seq)
            .cloned()
            .collect();
        // Pipelines: stages still open now that this iteration committed,
        // against stages open at its start that it consumed.
        let mut channels: Vec<Channel> = self
            .async_state
            .commits
            .iter()
            .filter(|c| c.batch >= frame.first_batch)
            .map(|c| c.channel)
            .collect();
        channels.dedup();
        for ch in channels {
            let opened = self
                .async_state
                .commits
                .iter()
                .filter(|c| c.channel == ch && c.batch >= frame.first_batch && !c.consumed)
                .count();
            let consumed = self
                .async_state
                .commits
                .iter()
                .filter(|c| c.channel == ch && c.consumed && frame.open_at_start.contains(&c.batch))
                .count();
            if frame.waits_oldest.contains(&ch) && opened > consumed {
                self.unsupported(
                    node,
                    "pipeline stages left in flight by a loop iteration beyond those it found (a `consumer_wait` could complete a stage of an earlier iteration the model does not see)",
                );
            }
        }
        // After the loop, its commits stand for one batch per iteration.
        for c in &mut self.async_state.commits {
            if c.batch >= frame.first_batch {
                c.repeated = true;
            }
        }
        if left.is_empty() || frame.recording {
            return;
        }
        let log = frame.log;
        for p in &left {
            // The copies found in flight at the body's start play the part of
            // those the previous iteration leaves: older than every copy of
            // the body, completed (on every path) before its first barrier.
            let same = |c: &&(usize, Channel)| c.1 == p.channel;
            let stand_ins = frame.start.iter().filter(same).count();
            let completed_stand_ins = frame
                .start
                .iter()
                .filter(same)
                .filter(|(seq, _)| !frame.survivors.contains(seq))
                .count();
            let carried = left.iter().filter(|q| q.channel == p.channel).count();
            let like_start =
                stand_ins > 0 && completed_stand_ins == stand_ins && carried <= stand_ins;
            if !like_start && !completed_by(p, &self.async_state, &log) {
                let line = p.span.start.line + 1;
                self.unsupported(
                    node,
                    format!("an asynchronous copy (line {line}) may still be in flight after the next iteration's first barrier"),
                );
            }
        }
    }

    /// Around the two branches of a conditional: a copy is in flight after
    /// it when it is in flight after either branch.
    /// (Whether each loop body being lowered has met no barrier yet is
    /// per path too.)
    /// (The open split phase of a `cuda::barrier` is per path too.)
    pub(in crate::frontend::lower) fn async_branch_start(&self) -> BranchAsync {
        let recording = self.async_loops.iter().map(|f| f.recording).collect();
        (
            self.async_state.clone(),
            recording,
            self.split_arrive.clone(),
        )
    }

    pub(in crate::frontend::lower) fn async_branch_switch(
        &mut self,
        before: BranchAsync,
    ) -> BranchAsync {
        let recording = self.set_recording(before.1);
        (
            std::mem::replace(&mut self.async_state, before.0),
            recording,
            std::mem::replace(&mut self.split_arrive, before.2),
        )
    }

    fn set_recording(&mut self, to: Vec<bool>) -> Vec<bool> {
        let mut old = Vec::new();
        for (frame, r) in self.async_loops.iter_mut().zip(to) {
            old.push(frame.recording);
            frame.recording = r;
        }
        old
    }

    pub(in crate::frontend::lower) fn async_branch_merge(&mut self, then_branch: BranchAsync) {
        let (then_state, then_recording, then_phase) = then_branch;
        // A phase open after both branches (each arrived, `if (t == 0)
        // token = barrier_arrive_tx(...); else token = bar.arrive();`): one
        // phase, with the accesses of both; open after only one: a wait
        // after the branches is not modelled (reported there).
        if self.dry == 0 {
            let else_phase = self.split_arrive.take();
            self.split_arrive = match (then_phase, else_phase) {
                (Some(mut a), Some(b)) if a.array == b.array && a.loops == b.loops => {
                    for x in b.accesses {
                        if !a.accesses.iter().any(|y| y.id == x.id) {
                            a.accesses.push(x);
                        }
                    }
                    a.async_seq = a.async_seq.max(b.async_seq);
                    a.barrier_after_access |= b.barrier_after_access;
                    Some(a)
                }
                _ => None,
            };
        }
        for (frame, r) in self.async_loops.iter_mut().zip(then_recording) {
            frame.recording &= r;
        }
        for p in then_state.pending {
            match self.async_state.pending.iter_mut().find(|q| q.seq == p.seq) {
                Some(q) => {
                    if q.batch != p.batch {
                        q.batch = None;
                    }
                }
                None => self.async_state.pending.push(p),
            }
        }
        self.async_state.pending.sort_by_key(|p| p.seq);
        for c in then_state.commits {
            match self
                .async_state
                .commits
                .iter_mut()
                .find(|d| d.batch == c.batch)
            {
                Some(d) => d.consumed &= c.consumed,
                None => self.async_state.commits.push(c),
            }
        }
        self.async_state.commits.sort_by_key(|c| c.batch);
        // Acquired after the branches only if acquired after both.
        self.async_state
            .acquired
            .retain(|p| then_state.acquired.contains(p));
        self.async_state
            .waited
            .retain(|p| then_state.waited.contains(p));
    }
}

/// The number of iterations of a loop whose condition at iteration
/// `counter` is `guard`, when the guard is a constant at every iteration
/// (it depends on the counter alone): the first iteration where it fails.
/// A `break` only runs fewer. `None` when it does not (or runs past a
/// bound the count of copies never needs).
fn constant_trips(counter: &Var, guard: &Expr) -> Option<i64> {
    const MOST: i64 = 1 << 12;
    (0..=MOST).find_map(|k| {
        let at_k = guard.subst(&mut |v: &Var| (v == counter).then_some(Expr::Const(k)));
        match at_k.as_const() {
            Some(0) => Some(Some(k)),
            Some(_) if k < MOST => None,
            _ => Some(None),
        }
    })?
}

/// Whether the next iteration's operations before its first barrier
/// (`log`, those on the body's own path) complete `p`, a copy the previous
/// iteration left in flight.
fn completed_by(p: &PendingCopy, st: &AsyncState, log: &[Op]) -> bool {
    let ch = p.channel;
    // Stages of the channel older than `p` or `p`'s own, still open.
    let older_or_own = st
        .commits
        .iter()
        .filter(|c| c.channel == ch && !c.consumed && p.batch.is_some_and(|b| c.batch <= b))
        .count();
    let mut issued = 0i64;
    let mut committed = 0i64;
    let mut popped = 0usize;
    for op in log {
        match op {
            Op::Issue(c) if *c == ch => issued += 1,
            Op::Commit(c) if *c == ch => committed += 1,
            Op::Complete(c, how) if *c == ch => {
                let done = match how {
                    Completion::All => true,
                    Completion::Prior(n) if ch == Channel::Group => issued >= *n,
                    Completion::Prior(n) => p.batch.is_some() && committed >= *n,
                    Completion::Oldest => {
                        popped += 1;
                        p.batch.is_some() && popped >= older_or_own
                    }
                };
                if done {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trips_of_a_loop_come_from_a_condition_on_its_counter_alone() {
        let k = Var::new("c@0", VarKind::Counter { pow2: false });
        let kv = Expr::Var(k.clone());
        // `for (c = 0; c < 4; ++c)`: four iterations.
        let four = Expr::bin(BinOp::Lt, kv.clone(), Expr::Const(4));
        assert_eq!(constant_trips(&k, &four), Some(4));
        // `for (c = 2; c < 2; ++c)`: none.
        let none = Expr::bin(
            BinOp::Lt,
            Expr::add(kv.clone(), Expr::Const(2)),
            Expr::Const(2),
        );
        assert_eq!(constant_trips(&k, &none), Some(0));
        // A bound the counter alone does not fix: unknown.
        let n = Expr::Var(Var::new("n", VarKind::Param { lo: 0, hi: 100 }));
        let symbolic = Expr::bin(BinOp::Lt, kv.clone(), n);
        assert_eq!(constant_trips(&k, &symbolic), None);
        // A loop that never ends (as far as the counter says): unknown.
        assert_eq!(constant_trips(&k, &Expr::tru()), None);
    }
}
