//! Asynchronous copies and the objects that complete them:
//! `cg::memcpy_async` with `cg::wait` / `cg::wait_prior<N>`,
//! `cuda::memcpy_async` into a `cuda::pipeline` (`producer_commit`,
//! `consumer_wait`, `cuda::pipeline_consumer_wait_prior<N>`) or a
//! `cuda::barrier` (`arrive_and_wait`, split `arrive()` / `wait(token)`,
//! and the same phases through the `__mbarrier_*` primitives), and the
//! pipeline primitives (`__pipeline_memcpy_async`, `__pipeline_commit`,
//! `__pipeline_wait_prior`).
//!
//! A copy is a write of its destination that may land at any time from its
//! issue until the operation that completes it. It is recorded where it is
//! issued and recorded again after every barrier it is still in flight
//! across, so it conflicts with every access of another thread in each of
//! those barrier intervals; once completed it is an ordinary write, ordered
//! for other threads only by a later barrier. A copy a loop iteration leaves
//! in flight is in the iteration's tail interval, which the verifier pairs
//! with the next iteration's head; it must be completed before the next
//! iteration's first barrier, else the loop is reported `not-verified`.
//!
//! One file per concern: this one holds the copies in flight (issued,
//! committed, completed, recorded again across barriers) and the calls;
//! `cooperative` the `memcpy_async` forms and group copies, `pipelines`
//! `cuda::pipeline` and the pipeline primitives, `lockstep` the commit
//! count of a block-scope pipeline's lookahead loop, `barriers`
//! `cuda::barrier` phases and transaction copies, `iterations` copies
//! across loop iterations and branches.

mod barriers;
mod cooperative;
mod iterations;
mod lockstep;
mod pipelines;

use super::*;
pub(super) use barriers::SplitPhase;
pub(super) use iterations::LoopAsync;
use iterations::Op;
pub(super) use lockstep::EnclosingLoop;
pub(super) use pipelines::{BlockPipe, CONSUMER_ROLE, PRODUCER_ROLE};

/// What completes a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Channel {
    /// `cg::memcpy_async`: `cg::wait` / `cg::wait_prior<N>` of the group.
    Group,
    /// A `cuda::pipeline` (numbered in the kernel).
    Pipeline(usize),
    /// The pipeline primitives of one thread (`__pipeline_*`).
    Primitives,
    /// A `cuda::barrier` (its shared cell).
    Barrier(ArrayId),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Completion {
    /// Every copy of the channel.
    All,
    /// All but the N most recent copies (a group) or committed batches.
    Prior(i64),
    /// The oldest committed batch (`consumer_wait`).
    Oldest,
}

#[derive(Clone, Debug)]
pub(super) struct PendingCopy {
    seq: usize,
    channel: Channel,
    /// The commit batch of a pipeline copy, once committed.
    batch: Option<usize>,
    /// The path condition it was issued under.
    path: Vec<Expr>,
    /// Where it was issued, for messages.
    span: Span,
    /// Its accesses as first recorded (the destination's write, the
    /// source's read), recorded again after each barrier it crosses.
    accesses: Vec<Access>,
    /// Its size in bytes, when constant.
    bytes: Option<i64>,
    /// A transaction copy (`memcpy_async_tx`, `cp_async_bulk`): the phase of
    /// its barrier waits for it only for the bytes an `expect_tx` of the
    /// phase counts; `expected` once one does.
    tx: bool,
    expected: bool,
    /// The threads that had left each enclosing loop (`continue`, `break`)
    /// when it was issued: a later wait completes it only while no more
    /// have left the loops around the wait since (every thread that issued
    /// it reaches the wait; leaving a loop that has ended since does not
    /// skip it).
    left: Vec<(Expr, Expr)>,
}

#[derive(Clone, Debug)]
pub(super) struct Commit {
    channel: Channel,
    batch: usize,
    path: Vec<Expr>,
    consumed: bool,
    /// Made in a loop that has ended: it stands for one batch per iteration,
    /// so which one is the oldest is not known.
    repeated: bool,
}

/// The state of the asynchronous copies at one point of the lowering.
#[derive(Clone, Debug, Default)]
pub(super) struct AsyncState {
    pending: Vec<PendingCopy>,
    commits: Vec<Commit>,
    /// Block-scope pipelines whose current stage is acquired and not yet
    /// committed (on every path here).
    acquired: Vec<usize>,
    /// Block-scope pipelines whose current stage has been waited for
    /// (`consumer_wait`) and not yet released (on every path here).
    waited: Vec<usize>,
}

impl<'a, 't> Lowerer<'a, 't> {
    /// `cuda::*` and primitive calls of asynchronous copies; `None` for
    /// any other name.
    pub(in crate::frontend::lower) fn async_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Option<Value> {
        match name {
            "memcpy_async" if args.len() == 4 || args.len() == 5 => {
                let vals: Vec<Value> = args
                    .iter()
                    .map(|a| match self.barrier_object(*a) {
                        // The barrier object itself, not a read of its cell.
                        Some(id) => self.base_ptr(id),
                        None => self.eval_buffer(*a),
                    })
                    .collect();
                Some(self.memcpy_async_call(node, &vals))
            }
            // `cuda::aligned_size_t<16>(bytes)`: the size itself.
            "aligned_size_t" if args.len() == 1 => Some(self.eval(args[0])),
            _ => self
                .pipeline_call(name, node, args, template_args)
                .or_else(|| self.barrier_call(name, node, args)),
        }
    }
    /// An argument that may be a row of a multi-dimensional array (`buf[s]`
    /// of `buf[2][N]`): the row's pointer, not a read of an element.
    pub(super) fn eval_buffer(&mut self, arg: Node) -> Value {
        if arg.kind() == "subscript_expression" {
            self.dry += 1;
            let row = matches!(self.lvalue_base(arg), Some((Value::Ptr(_), _)));
            self.dry -= 1;
            if row {
                if let Some((v, _)) = self.lvalue_base(arg) {
                    return v;
                }
            }
        }
        self.eval(arg)
    }

    /// One copy of `bytes` bytes (a constant, or unknown) from `src` to
    /// `dst`: by the whole group (`collective`: any thread may copy any
    /// element, recorded as atomic updates that conflict with every plain
    /// access of another thread but not with the rest of the copy), or by
    /// this thread alone.
    pub(super) fn issue(
        &mut self,
        ch: Channel,
        collective: bool,
        node: Node,
        dst: &Value,
        src: &Value,
        bytes: &Value,
    ) {
        let (Value::Ptr(dst), Value::Ptr(src)) = (dst, src) else {
            self.unsupported(node, "`memcpy_async` of pointers the model does not track");
            return;
        };
        // A copy in flight is followed by the arrays it writes.
        let (Some(dst), Some(src)) = (
            self.single_target(dst.clone(), node, "`memcpy_async`"),
            self.single_target(src.clone(), node, "`memcpy_async`"),
        ) else {
            return;
        };
        let (dst, src) = (&dst, &src);
        if self.dry > 0 {
            return;
        }
        let text = self.text(node);
        let first = self.next_access;
        let write = if collective {
            AccessKind::Atomic
        } else {
            AccessKind::Write
        };
        // One element copied by this thread between arrays of one element
        // type: with read values tracked (`syncscope equiv`), what it
        // writes is what it reads, as for `dst[i] = src[j]`.
        let copied = if self.track_values && !collective {
            self.copied_element(dst, src, bytes, &text)
        } else {
            None
        };
        for (p, kind) in [(src, AccessKind::Read), (dst, write)] {
            let value = copied.clone().filter(|_| kind != AccessKind::Atomic);
            let saved = match kind {
                AccessKind::Read => std::mem::replace(&mut self.read_value, value),
                _ => std::mem::replace(&mut self.written_value, value),
            };
            self.copy_range(p, kind, bytes, node, &text);
            match kind {
                AccessKind::Read => self.read_value = saved,
                _ => self.written_value = saved,
            }
        }
        let accesses: Vec<Access> = self
            .out
            .last()
            .map(|body| {
                body.iter()
                    .filter_map(|s| match s {
                        Stmt::Access(a) if a.id >= first => Some(a.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let seq = self.async_seq;
        self.async_seq += 1;
        self.async_state.pending.push(PendingCopy {
            seq,
            channel: ch,
            batch: None,
            path: self.path.clone(),
            span: self.span(node),
            accesses,
            bytes: match bytes {
                Value::Int(Expr::Const(b)) if *b >= 0 => Some(*b),
                _ => None,
            },
            tx: false,
            expected: false,
            left: self.loop_exits(),
        });
        self.log_op(Op::Issue(ch));
    }

    /// One side of a copy: elements `0 .. bytes / element size` from the
    /// pointer on; all of them from there when the size is not known.
    fn copy_range(&mut self, p: &Ptr, kind: AccessKind, bytes: &Value, node: Node, text: &str) {
        if kind == AccessKind::Atomic {
            self.async_targets.insert(p.array);
            if self.atomic_targets.contains(&p.array) {
                self.async_and_atomic(p.array, node);
            }
        }
        let elems = match (bytes, self.elem_of(p).1) {
            (Value::Int(Expr::Const(b)), Some(e)) if *b > 0 && e > 0 && b % e == 0 => Some(b / e),
            _ => None,
        };
        self.record_range(p, elems, kind, node, text, "copied_element");
    }

    /// The value a copy of one element moves from `src` to `dst`, when both
    /// are arrays of one element type seen as themselves (no view of other
    /// bytes) and the copy is exactly one element: a fresh value read.
    fn copied_element(&mut self, dst: &Ptr, src: &Ptr, bytes: &Value, text: &str) -> Option<Expr> {
        let plain = |p: &Ptr| p.view.is_none() && !self.arrays[p.array].byte_addressed;
        // The type as the element is read (qualifiers aside).
        let bare = |t: Option<String>| {
            t.map(|t| {
                t.split_whitespace()
                    .filter(|w| !matches!(*w, "const" | "volatile"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        let ((td, sd), (ts, ss)) = (self.elem_of(dst), self.elem_of(src));
        let (td, ts) = (bare(td), bare(ts));
        let one = match (bytes, sd) {
            (Value::Int(Expr::Const(b)), Some(e)) => *b == e,
            _ => false,
        };
        if !(plain(dst) && plain(src) && one && td.is_some() && td == ts && sd == ss) {
            return None;
        }
        let v = self.fresh_value(text, Scope::Thread);
        Some(if self.float_elements(src.array) {
            self.mark_float(v)
        } else {
            v
        })
    }

    pub(super) fn commit(&mut self, ch: Channel) {
        if self.dry > 0 {
            return;
        }
        let batch = self.async_batch;
        self.async_batch += 1;
        for p in &mut self.async_state.pending {
            if p.channel == ch && p.batch.is_none() {
                p.batch = Some(batch);
            }
        }
        self.async_state.commits.push(Commit {
            channel: ch,
            batch,
            path: self.path.clone(),
            consumed: false,
            repeated: false,
        });
        self.log_op(Op::Commit(ch));
    }

    /// The threads that have left each enclosing loop so far (its
    /// `continue` and `break` conditions).
    fn loop_exits(&self) -> Vec<(Expr, Expr)> {
        self.frames
            .iter()
            .map(|f| (f.continued.clone(), f.broke.clone()))
            .collect()
    }

    /// Whether something issued under `path` has certainly been issued
    /// when the current path is taken.
    fn definite(&self, path: &[Expr]) -> bool {
        self.path.starts_with(path)
    }

    /// Completes the copies `how` says. Never completes a copy that might
    /// still be in flight: where the model cannot tell (a later copy issued
    /// only on some paths), the copy stays in flight.
    pub(in crate::frontend::lower) fn complete(&mut self, ch: Channel, how: Completion) {
        if self.dry > 0 {
            return;
        }
        // After a `break` or `continue` some threads skip this wait and go
        // on with their copies in flight: only a copy issued after the last
        // of them left (every thread that issued it reaches this wait) is
        // completed, and for the oldest stage nothing is. (Threads that
        // returned make no further accesses.)
        let exits = self.loop_exits();
        let someone_left = exits.iter().any(|(c, b)| !c.is_false() || !b.is_false());
        if someone_left && how == Completion::Oldest {
            return;
        }
        let st = &self.async_state;
        let done: Vec<usize> = match how {
            Completion::All => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .map(|p| p.seq)
                .collect(),
            Completion::Prior(n) if ch == Channel::Group => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .filter(|p| {
                    let later = st
                        .pending
                        .iter()
                        .filter(|q| q.channel == ch && q.seq > p.seq && self.definite(&q.path))
                        .count();
                    later as i64 >= n
                })
                .map(|p| p.seq)
                .collect(),
            Completion::Prior(n) => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .filter(|p| {
                    p.batch.is_some_and(|b| {
                        let later = st
                            .commits
                            .iter()
                            .filter(|c| {
                                c.channel == ch
                                    && c.batch > b
                                    && !c.repeated
                                    && self.definite(&c.path)
                            })
                            .count();
                        later as i64 >= n
                    })
                })
                .map(|p| p.seq)
                .collect(),
            Completion::Oldest => {
                let oldest = st
                    .commits
                    .iter()
                    .position(|c| c.channel == ch && !c.consumed);
                match oldest {
                    Some(i) if self.definite(&st.commits[i].path) && !st.commits[i].repeated => {
                        let batch = st.commits[i].batch;
                        self.async_state.commits[i].consumed = true;
                        self.async_state
                            .pending
                            .iter()
                            .filter(|p| p.channel == ch && p.batch == Some(batch))
                            .map(|p| p.seq)
                            .collect()
                    }
                    _ => Vec::new(),
                }
            }
        };
        let done: Vec<usize> = done
            .into_iter()
            .filter(|seq| {
                !someone_left
                    || self
                        .async_state
                        .pending
                        .iter()
                        .any(|p| p.seq == *seq && p.left.starts_with(&exits))
            })
            .collect();
        self.async_state.pending.retain(|p| !done.contains(&p.seq));
        if how == Completion::Oldest {
            self.loop_bodies_wait_oldest(ch);
        }
        self.log_op(Op::Complete(ch, how));
    }

    /// After a barrier: every copy still in flight may land in the new
    /// interval too.
    pub(in crate::frontend::lower) fn copies_cross_barrier(&mut self) {
        self.loop_bodies_meet_barrier();
        let again: Vec<Access> = self
            .async_state
            .pending
            .iter()
            .flat_map(|p| p.accesses.clone())
            .collect();
        for mut a in again {
            a.id = self.next_access;
            self.next_access += 1;
            a.loops = self.loops.clone();
            self.emit(Stmt::Access(a));
        }
    }
}
