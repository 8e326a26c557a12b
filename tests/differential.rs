//! Differential test (issue #3): random small kernels are checked both by the
//! Z3 engine with symbolic launch sizes and by exhaustive concrete execution
//! at small fixed sizes (blocks of 1..=8 threads, grids of 1..=2 blocks).
//!
//! * every statement pair that races concretely is reported symbolically;
//! * every symbolic race replays: its witness threads, run by the concrete
//!   executor below at the witness's launch sizes, race on that pair;
//! * a verified kernel has no concrete race, and no kernel of the generator
//!   (barriers only under block-uniform conditions) gets a divergence,
//!   not-verified or unknown finding;
//! * every redundant-barrier claim is a proof: the kernel is verified, and
//!   with that barrier removed no small launch races concretely.
//!
//! Besides the free-form kernels, a second family is shaped after the
//! claims issue 17 found false: a loop holding a barrier with accesses
//! before, inside (on some trips only) and after it; a `__shared__` scalar
//! read and written in loops; calls to a function without a body taking a
//! reference (`touch(int &)`: it may write the cell); accesses through a
//! pointer member of a local struct (`v.s[i]`).
//!
//! The kernel language is a small AST rendered as CUDA; the concrete
//! executor below runs that AST directly and shares no code with the
//! engine's replay interpreter. Seeds are fixed, so a failure is
//! reproducible: the message prints the seed and the kernel source.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use syncscope_core::{FindingKind, Options};

// ---------------------------------------------------------------- PRNG

/// SplitMix64: a small deterministic generator (no dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// True with probability `p` percent.
    fn pct(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

// ---------------------------------------------------------------- AST

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Shr,
}

#[derive(Clone, Debug)]
enum E {
    Tid,
    Bid,
    BDim,
    GDim,
    /// The `int n` parameter.
    N,
    /// The loop variable of the enclosing loop at this depth.
    Lv(usize),
    C(i64),
    B(Op, Box<E>, Box<E>),
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Arr {
    Shared,
    Global,
    /// `__shared__ int sc;`: one cell (the index is ignored).
    Scalar,
}

/// How an access is written (same semantics, different front-end paths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    /// `s[i]`
    Direct,
    /// `v.s[i]`: through a pointer member of a local struct.
    Member,
    /// `touch(s[i]);` with `touch(int &)` declared without a body: the
    /// call may write the cell (a write).
    RefCall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Read,
    Write,
    Atomic,
}

impl Kind {
    fn writes(self) -> bool {
        self != Kind::Read
    }
}

#[derive(Clone, Debug)]
enum St {
    Access {
        id: usize,
        arr: Arr,
        kind: Kind,
        idx: E,
        via: Via,
    },
    Sync {
        id: usize,
    },
    If {
        cmp: Cmp,
        a: E,
        b: E,
        then: Vec<St>,
        els: Vec<St>,
    },
    For {
        depth: usize,
        bound: i64,
        step: i64,
        body: Vec<St>,
    },
}

struct Kernel {
    body: Vec<St>,
}

// ---------------------------------------------------------------- generator

struct Gen {
    rng: Rng,
    next_id: usize,
    /// Which arrays this kernel uses.
    shared: bool,
    global: bool,
    /// The issue-17 features: shared scalar, reference calls, struct members.
    features: bool,
}

impl Gen {
    /// A leaf; `uniform`: block-uniform values only.
    fn leaf(&mut self, loops: usize, uniform: bool) -> E {
        loop {
            let e = match self.rng.below(12) {
                0..=3 => E::Tid,
                4 | 5 => E::Bid,
                6 => E::BDim,
                7 => E::GDim,
                8 => E::N,
                9 if loops > 0 => E::Lv(self.rng.below(loops as u64) as usize),
                _ => E::C(self.rng.range(0, 8)),
            };
            if uniform && matches!(e, E::Tid) {
                continue;
            }
            return e;
        }
    }

    fn expr(&mut self, depth: u32, loops: usize, uniform: bool) -> E {
        if depth == 0 || self.rng.pct(35) {
            return self.leaf(loops, uniform);
        }
        let op = match self.rng.below(9) {
            0 | 1 => Op::Add,
            2 => Op::Sub,
            3 | 4 => Op::Mul,
            5 => Op::Div,
            6 => Op::Rem,
            7 => Op::And,
            _ => Op::Shr,
        };
        let a = self.expr(depth - 1, loops, uniform);
        let b = match op {
            // Division-like operators take small positive constants.
            Op::Div | Op::Rem => E::C(self.rng.range(1, 5)),
            Op::And => E::C([1, 3, 6, 7][self.rng.below(4) as usize]),
            Op::Shr => E::C(self.rng.range(0, 2)),
            // Products stay mostly linear: one side a constant, or the
            // classic `blockIdx.x * blockDim.x`.
            Op::Mul => match self.rng.below(4) {
                0 => return E::B(Op::Mul, Box::new(E::Bid), Box::new(E::BDim)),
                1 => self.expr(depth - 1, loops, uniform),
                _ => E::C(self.rng.range(0, 4)),
            },
            _ => self.expr(depth - 1, loops, uniform),
        };
        E::B(op, Box::new(a), Box::new(b))
    }

    fn access(&mut self, loops: usize) -> St {
        let arr = match (self.shared, self.global) {
            (true, true) => {
                if self.rng.pct(50) {
                    Arr::Shared
                } else {
                    Arr::Global
                }
            }
            (true, false) => Arr::Shared,
            _ => Arr::Global,
        };
        let arr = if self.features && arr == Arr::Shared && self.rng.pct(30) {
            Arr::Scalar
        } else {
            arr
        };
        let mut kind = match self.rng.below(10) {
            0..=3 => Kind::Read,
            4..=7 => Kind::Write,
            _ => Kind::Atomic,
        };
        let via = if !self.features || arr == Arr::Scalar && self.rng.pct(50) {
            Via::Direct
        } else {
            match self.rng.below(10) {
                0..=5 => Via::Direct,
                6 | 7 => Via::Member,
                _ => Via::RefCall,
            }
        };
        let via = if via == Via::Member && arr == Arr::Scalar {
            Via::Direct
        } else {
            via
        };
        if via == Via::RefCall {
            kind = Kind::Write;
        }
        let mut idx = self.expr(2, loops, false);
        if self.features && self.rng.pct(75) {
            // The shapes real kernels use: own cell, neighbour, fixed cell,
            // a cell per trip; a global cell per thread of the grid.
            let t = || Box::new(E::Tid);
            idx = match (arr, self.rng.below(5)) {
                (Arr::Global, 0..=2) => E::B(
                    Op::Add,
                    Box::new(E::B(Op::Mul, Box::new(E::Bid), Box::new(E::BDim))),
                    t(),
                ),
                (_, 0 | 1) => E::Tid,
                (_, 2) => E::B(
                    Op::And,
                    Box::new(E::B(Op::Add, t(), Box::new(E::C(1)))),
                    Box::new(E::C(15)),
                ),
                (_, 3) if loops > 0 => E::B(
                    Op::And,
                    Box::new(E::B(Op::Add, t(), Box::new(E::Lv(loops - 1)))),
                    Box::new(E::C(15)),
                ),
                _ => E::C(self.rng.range(0, 2)),
            };
            return self.finish_access(arr, kind, idx, via);
        }
        if arr == Arr::Shared {
            // Keep shared indices in bounds of `s[16]` most of the time.
            idx = match self.rng.below(3) {
                0 => E::B(Op::Rem, Box::new(idx), Box::new(E::C(16))),
                1 => E::B(Op::And, Box::new(idx), Box::new(E::C(15))),
                _ => idx,
            };
        }
        self.finish_access(arr, kind, idx, via)
    }

    fn finish_access(&mut self, arr: Arr, kind: Kind, idx: E, via: Via) -> St {
        let id = self.next_id;
        self.next_id += 1;
        St::Access {
            id,
            arr,
            kind,
            idx,
            via,
        }
    }

    /// An access of `arr` only under the condition `i{loop} cmp c` (a
    /// block-uniform condition on a loop variable), or unconditionally.
    fn trip_access(&mut self, loops: usize, out: &mut Vec<St>) {
        self.trip_access_pct(loops, out, 60);
    }

    fn trip_access_pct(&mut self, loops: usize, out: &mut Vec<St>, conditional: u64) {
        let a = self.access(loops);
        if loops > 0 && self.rng.pct(conditional) {
            let cmp = [Cmp::Eq, Cmp::Ne, Cmp::Ge][self.rng.below(3) as usize];
            out.push(St::If {
                cmp,
                a: E::Lv(loops - 1),
                b: E::C(self.rng.range(0, 1)),
                then: vec![a],
                els: Vec::new(),
            });
        } else {
            out.push(a);
        }
    }

    fn sync(&mut self) -> St {
        let id = self.next_id;
        self.next_id += 1;
        St::Sync { id }
    }

    /// A block of statements. `uniform`: every enclosing condition is
    /// block-uniform (a barrier may go here).
    fn block(&mut self, budget: &mut usize, depth: u32, loops: usize, uniform: bool) -> Vec<St> {
        let mut out = Vec::new();
        let n = self.rng.range(1, 4);
        for _ in 0..n {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let r = self.rng.below(100);
            if r < 55 || depth == 0 {
                out.push(self.access(loops));
            } else if r < 70 {
                if uniform {
                    let id = self.next_id;
                    self.next_id += 1;
                    out.push(St::Sync { id });
                } else {
                    out.push(self.access(loops));
                }
            } else if r < 87 {
                let cond_uniform = self.rng.pct(40);
                let a = self.expr(1, loops, cond_uniform);
                let b = E::C(self.rng.range(0, 6));
                let cmp = [Cmp::Lt, Cmp::Le, Cmp::Eq, Cmp::Ne, Cmp::Ge][self.rng.below(5) as usize];
                let inner = uniform && cond_uniform;
                let then = self.block(budget, depth - 1, loops, inner);
                let els = if self.rng.pct(40) {
                    self.block(budget, depth - 1, loops, inner)
                } else {
                    Vec::new()
                };
                out.push(St::If {
                    cmp,
                    a,
                    b,
                    then,
                    els,
                });
            } else {
                let bound = self.rng.range(1, 4);
                let step = if self.rng.pct(75) { 1 } else { 2 };
                let body = self.block(budget, depth - 1, loops + 1, uniform);
                out.push(St::For {
                    depth: loops,
                    bound,
                    step,
                    body,
                });
            }
        }
        out
    }
}

fn generate(seed: u64) -> Kernel {
    let mut rng = Rng(seed);
    let (shared, global) = match rng.below(3) {
        0 => (true, false),
        1 => (false, true),
        _ => (true, true),
    };
    let mut g = Gen {
        rng,
        next_id: 0,
        shared,
        global,
        features: false,
    };
    let mut budget = 9;
    let body = g.block(&mut budget, 3, 0, true);
    let body = if body.is_empty() {
        vec![g.access(0)]
    } else {
        body
    };
    Kernel { body }
}

/// A kernel of the shaped family (one of three templates, by seed):
/// 0. a loop whose barrier separates the code before it from the accesses
///    of later trips, and the early trips from the code after it;
/// 1. a `__shared__` scalar written by threads taking turns in a loop, with
///    or without a barrier per trip;
/// 2. a mix: code before, a loop with a barrier, a turn-taking loop, code
///    after, with reference calls and struct members.
fn generate_shaped(seed: u64) -> Kernel {
    let mut rng = Rng(seed ^ 0x5157_0017);
    let global = rng.pct(25);
    let mut g = Gen {
        rng,
        next_id: 0,
        shared: true,
        global,
        features: true,
    };
    let mut body = Vec::new();
    match seed % 3 {
        0 => {
            body.push(g.access(0));
            let mut inner = Vec::new();
            // Mostly only on some trips: the code before the loop then
            // meets them only across the barrier of an earlier trip.
            g.trip_access_pct(1, &mut inner, 90);
            inner.push(g.sync());
            if g.rng.pct(30) {
                g.trip_access(1, &mut inner);
            }
            body.push(St::For {
                depth: 0,
                bound: g.rng.range(2, 3),
                step: 1,
                body: inner,
            });
            body.push(g.access(0));
        }
        1 => {
            let kind = if g.rng.pct(50) {
                Kind::Write
            } else {
                Kind::Read
            };
            let first = g.finish_access(Arr::Scalar, Kind::Write, E::C(0), Via::Direct);
            body.push(St::If {
                cmp: Cmp::Eq,
                a: E::Tid,
                b: E::C(0),
                then: vec![first],
                els: Vec::new(),
            });
            body.push(g.sync());
            let via = if g.rng.pct(25) {
                Via::RefCall
            } else {
                Via::Direct
            };
            let kind = if via == Via::RefCall {
                Kind::Write
            } else {
                kind
            };
            let turn = g.finish_access(Arr::Scalar, kind, E::C(0), via);
            let mut inner = vec![St::If {
                cmp: Cmp::Eq,
                a: E::Tid,
                b: E::Lv(0),
                then: vec![turn],
                els: Vec::new(),
            }];
            if g.rng.pct(50) {
                inner.push(g.access(1));
            }
            if g.rng.pct(50) {
                inner.push(g.sync());
            }
            body.push(St::For {
                depth: 0,
                bound: g.rng.range(2, 3),
                step: 1,
                body: inner,
            });
            if g.rng.pct(50) {
                body.push(g.sync());
            }
            body.push(g.finish_access(Arr::Scalar, Kind::Read, E::C(0), Via::Direct));
        }
        _ => {
            body.push(g.access(0));
            let mut inner = Vec::new();
            if g.rng.pct(50) {
                g.trip_access(1, &mut inner);
            }
            inner.push(g.sync());
            g.trip_access(1, &mut inner);
            body.push(St::For {
                depth: 0,
                bound: g.rng.range(1, 3),
                step: 1,
                body: inner,
            });
            if g.rng.pct(40) {
                body.push(g.sync());
            }
            body.push(g.access(0));
        }
    }
    Kernel { body }
}

// ---------------------------------------------------------------- rendering

fn render_e(e: &E, out: &mut String) {
    match e {
        E::Tid => out.push_str("threadIdx.x"),
        E::Bid => out.push_str("blockIdx.x"),
        E::BDim => out.push_str("blockDim.x"),
        E::GDim => out.push_str("gridDim.x"),
        E::N => out.push('n'),
        E::Lv(d) => {
            let _ = write!(out, "i{d}");
        }
        E::C(c) => {
            let _ = write!(out, "{c}");
        }
        E::B(op, a, b) => {
            out.push('(');
            render_e(a, out);
            out.push_str(match op {
                Op::Add => " + ",
                Op::Sub => " - ",
                Op::Mul => " * ",
                Op::Div => " / ",
                Op::Rem => " % ",
                Op::And => " & ",
                Op::Shr => " >> ",
            });
            render_e(b, out);
            out.push(')');
        }
    }
}

/// CUDA source, and the statement id of each line that holds an access or
/// a barrier (0-based lines).
fn render(k: &Kernel) -> (String, HashMap<usize, usize>) {
    let mut lines = vec![
        "__device__ void touch(int &cell);".to_string(),
        "struct View { int *s; int *g; };".to_string(),
        "__global__ void k(int *g, int n) {".to_string(),
        "    __shared__ int s[16];".to_string(),
        "    __shared__ int sc;".to_string(),
        "    int acc = 0;".to_string(),
        "    View v;".to_string(),
        "    v.s = s;".to_string(),
        "    v.g = g;".to_string(),
    ];
    let mut ids = HashMap::new();
    render_block(&k.body, 1, &mut lines, &mut ids);
    lines.push("}".to_string());
    (lines.join("\n") + "\n", ids)
}

fn render_block(
    stmts: &[St],
    indent: usize,
    lines: &mut Vec<String>,
    ids: &mut HashMap<usize, usize>,
) {
    let pad = "    ".repeat(indent);
    for s in stmts {
        match s {
            St::Access {
                id,
                arr,
                kind,
                idx,
                via,
            } => {
                let mut i = String::new();
                render_e(idx, &mut i);
                let base = match arr {
                    Arr::Shared => "s",
                    Arr::Global => "g",
                    Arr::Scalar => "sc",
                };
                let cell = match (arr, via) {
                    (Arr::Scalar, _) => base.to_string(),
                    (_, Via::Member) => format!("v.{base}[{i}]"),
                    _ => format!("{base}[{i}]"),
                };
                let text = match (via, kind) {
                    (Via::RefCall, _) => format!("touch({cell});"),
                    (_, Kind::Read) => format!("acc += {cell};"),
                    (_, Kind::Write) => format!("{cell} = acc;"),
                    (_, Kind::Atomic) => format!("atomicAdd(&{cell}, 1);"),
                };
                ids.insert(lines.len(), *id);
                lines.push(format!("{pad}{text}"));
            }
            St::Sync { id } => {
                ids.insert(lines.len(), *id);
                lines.push(format!("{pad}__syncthreads();"));
            }
            St::If {
                cmp,
                a,
                b,
                then,
                els,
            } => {
                let mut c = String::new();
                render_e(a, &mut c);
                c.push_str(match cmp {
                    Cmp::Lt => " < ",
                    Cmp::Le => " <= ",
                    Cmp::Eq => " == ",
                    Cmp::Ne => " != ",
                    Cmp::Ge => " >= ",
                });
                render_e(b, &mut c);
                lines.push(format!("{pad}if ({c}) {{"));
                render_block(then, indent + 1, lines, ids);
                if els.is_empty() {
                    lines.push(format!("{pad}}}"));
                } else {
                    lines.push(format!("{pad}}} else {{"));
                    render_block(els, indent + 1, lines, ids);
                    lines.push(format!("{pad}}}"));
                }
            }
            St::For {
                depth,
                bound,
                step,
                body,
            } => {
                let inc = if *step == 1 {
                    format!("i{depth}++")
                } else {
                    format!("i{depth} += {step}")
                };
                lines.push(format!(
                    "{pad}for (int i{depth} = 0; i{depth} < {bound}; {inc}) {{"
                ));
                render_block(body, indent + 1, lines, ids);
                lines.push(format!("{pad}}}"));
            }
        }
    }
}

// ---------------------------------------------------------------- concrete executor

#[derive(Clone, Copy, Debug)]
struct Launch {
    block_dim: i64,
    grid_dim: i64,
    n: i64,
}

/// One executed access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Event {
    id: usize,
    arr: Arr,
    index: i128,
    kind: Kind,
    /// Barriers this thread passed before the access.
    phase: usize,
}

struct Thread<'a> {
    launch: &'a Launch,
    tid: i64,
    bid: i64,
    loop_vars: Vec<i64>,
    events: Vec<Event>,
    /// Ids of the barriers passed, in order.
    barriers: Vec<usize>,
}

impl Thread<'_> {
    fn eval(&self, e: &E) -> i128 {
        match e {
            E::Tid => self.tid as i128,
            E::Bid => self.bid as i128,
            E::BDim => self.launch.block_dim as i128,
            E::GDim => self.launch.grid_dim as i128,
            E::N => self.launch.n as i128,
            E::Lv(d) => self.loop_vars[*d] as i128,
            E::C(c) => *c as i128,
            E::B(op, a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                // C semantics: `/` and `%` truncate toward zero (as Rust's),
                // `>>` is arithmetic, `&` is two's complement.
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                    Op::Rem => x % y,
                    Op::And => x & y,
                    Op::Shr => x >> y,
                }
            }
        }
    }

    fn exec(&mut self, stmts: &[St]) {
        for s in stmts {
            match s {
                St::Access {
                    id, arr, kind, idx, ..
                } => {
                    let index = if *arr == Arr::Scalar {
                        0
                    } else {
                        self.eval(idx)
                    };
                    // The model guards an access to a declared array by its
                    // bounds (an access out of them is another bug class).
                    if *arr == Arr::Shared && !(0..16).contains(&index) {
                        continue;
                    }
                    self.events.push(Event {
                        id: *id,
                        arr: *arr,
                        index,
                        kind: *kind,
                        phase: self.barriers.len(),
                    });
                }
                St::Sync { id } => self.barriers.push(*id),
                St::If {
                    cmp,
                    a,
                    b,
                    then,
                    els,
                } => {
                    let (x, y) = (self.eval(a), self.eval(b));
                    let c = match cmp {
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                        Cmp::Ge => x >= y,
                    };
                    self.exec(if c { then } else { els });
                }
                St::For {
                    depth,
                    bound,
                    step,
                    body,
                } => {
                    assert_eq!(*depth, self.loop_vars.len());
                    let mut i = 0;
                    while i < *bound {
                        self.loop_vars.push(i);
                        self.exec(body);
                        self.loop_vars.pop();
                        i += step;
                    }
                }
            }
        }
    }
}

/// Runs the given threads `(threadIdx.x, blockIdx.x)` of a launch; returns
/// each thread's accesses and barrier sequence.
fn run_threads(
    k: &Kernel,
    launch: &Launch,
    threads: &[(i64, i64)],
) -> Vec<(Vec<Event>, Vec<usize>)> {
    threads
        .iter()
        .map(|&(tid, bid)| {
            let mut t = Thread {
                launch,
                tid,
                bid,
                loop_vars: Vec::new(),
                events: Vec::new(),
                barriers: Vec::new(),
            };
            t.exec(&k.body);
            let mut ev = t.events;
            ev.sort();
            ev.dedup();
            (ev, t.barriers)
        })
        .collect()
}

/// Racing statement pairs `(min id, max id)` among `threads`: two distinct
/// threads, the same array and index, at least one write, not both atomic;
/// shared memory within one block and barrier phase; global memory within
/// one phase in one block, and at any phases across blocks.
fn races(k: &Kernel, launch: &Launch, threads: &[(i64, i64)]) -> BTreeSet<(usize, usize)> {
    let runs = run_threads(k, launch, threads);
    // (arr, index) -> (id, kind, block, phase) -> threads executing it.
    type Key = (usize, Kind, i64, usize);
    let mut cells: HashMap<(Arr, i128), BTreeMap<Key, BTreeSet<usize>>> = HashMap::new();
    for (t, (events, _)) in runs.iter().enumerate() {
        let bid = threads[t].1;
        for e in events {
            cells
                .entry((e.arr, e.index))
                .or_default()
                .entry((e.id, e.kind, bid, e.phase))
                .or_default()
                .insert(t);
        }
    }
    let mut out = BTreeSet::new();
    for ((arr, _), keys) in &cells {
        let keys: Vec<(&Key, &BTreeSet<usize>)> = keys.iter().collect();
        for (i, (a, ta)) in keys.iter().enumerate() {
            for (b, tb) in &keys[i..] {
                let (ida, ka, ba, pa) = **a;
                let (idb, kb, bb, pb) = **b;
                if !(ka.writes() || kb.writes()) || (ka == Kind::Atomic && kb == Kind::Atomic) {
                    continue;
                }
                let ordered = if ba == bb {
                    pa != pb
                } else {
                    *arr != Arr::Global
                };
                if ordered {
                    continue;
                }
                // Two distinct threads, one from each side.
                let distinct = ta.len() > 1 || tb.len() > 1 || ta != tb;
                if distinct {
                    out.insert((ida.min(idb), ida.max(idb)));
                }
            }
        }
    }
    out
}

/// Whether some block's threads pass different barrier sequences.
fn divergent(k: &Kernel, launch: &Launch, threads: &[(i64, i64)]) -> bool {
    let runs = run_threads(k, launch, threads);
    let mut per_block: HashMap<i64, &Vec<usize>> = HashMap::new();
    for (t, (_, bars)) in runs.iter().enumerate() {
        if let Some(prev) = per_block.insert(threads[t].1, bars) {
            if prev != bars {
                return true;
            }
        }
    }
    false
}

fn mentions(stmts: &[St], f: &dyn Fn(&E) -> bool) -> bool {
    fn in_e(e: &E, f: &dyn Fn(&E) -> bool) -> bool {
        f(e) || matches!(e, E::B(_, a, b) if in_e(a, f) || in_e(b, f))
    }
    stmts.iter().any(|s| match s {
        St::Access { idx, arr, .. } => *arr != Arr::Scalar && in_e(idx, f),
        St::Sync { .. } => false,
        St::If {
            a, b, then, els, ..
        } => in_e(a, f) || in_e(b, f) || mentions(then, f) || mentions(els, f),
        St::For { body, .. } => mentions(body, f),
    })
}

/// The small launches to run exhaustively. The engine's policy: a launch
/// dimension the kernel never mentions is 1 (no `threadIdx.x`/`blockDim.x`:
/// one thread; no `blockIdx.x`/`gridDim.x`: one block).
fn small_launches(k: &Kernel) -> Vec<Launch> {
    let block = mentions(&k.body, &|e| matches!(e, E::Tid | E::BDim));
    let grid = mentions(&k.body, &|e| matches!(e, E::Bid | E::GDim));
    let param = mentions(&k.body, &|e| matches!(e, E::N));
    let mut out = Vec::new();
    for block_dim in 1..=if block { 8 } else { 1 } {
        for grid_dim in 1..=if grid { 2 } else { 1 } {
            for &n in if param {
                &[0i64, 1, 2, 5][..]
            } else {
                &[0][..]
            } {
                out.push(Launch {
                    block_dim,
                    grid_dim,
                    n,
                });
            }
        }
    }
    out
}

/// The kernel with barrier `id` removed.
fn without_barrier(stmts: &[St], id: usize) -> Vec<St> {
    stmts
        .iter()
        .filter(|s| !matches!(s, St::Sync { id: b } if *b == id))
        .map(|s| match s {
            St::If {
                cmp,
                a,
                b,
                then,
                els,
            } => St::If {
                cmp: *cmp,
                a: a.clone(),
                b: b.clone(),
                then: without_barrier(then, id),
                els: without_barrier(els, id),
            },
            St::For {
                depth,
                bound,
                step,
                body,
            } => St::For {
                depth: *depth,
                bound: *bound,
                step: *step,
                body: without_barrier(body, id),
            },
            other => other.clone(),
        })
        .collect()
}

fn all_threads(l: &Launch) -> Vec<(i64, i64)> {
    (0..l.grid_dim)
        .flat_map(|b| (0..l.block_dim).map(move |t| (t, b)))
        .collect()
}

// ---------------------------------------------------------------- the check

struct Outcome {
    problems: Vec<String>,
    /// `unknown` findings: precision lost, not soundness.
    unknowns: Vec<String>,
    concrete_pairs: usize,
    symbolic_pairs: usize,
    /// Redundant-barrier claims checked by removing the barrier.
    redundancy_claims: usize,
    verified: bool,
}

/// Checks one kernel; returns the mismatches.
fn check(k: &Kernel) -> Outcome {
    let (src, ids) = render(k);
    let mut problems = Vec::new();
    // Concrete: racing pairs over all small launches.
    let mut concrete: BTreeMap<(usize, usize), Launch> = BTreeMap::new();
    for l in small_launches(k) {
        let threads = all_threads(&l);
        assert!(
            !divergent(k, &l, &threads),
            "generator invariant: barriers are block-uniform\n{src}"
        );
        for p in races(k, &l, &threads) {
            concrete.entry(p).or_insert(l);
        }
    }
    // Symbolic.
    // The concrete executor compares collisions, not values: with
    // `strict_benign` every collision of two writes is a `data-race`, also
    // where both write the same value (otherwise a `benign-race`).
    let options = Options {
        check_redundant: true,
        strict_benign: true,
        ..Options::default()
    };
    let report = syncscope_core::analyze_source(&src, &options);
    let id_of = |line: u32| ids.get(&(line as usize)).copied();
    let mut symbolic = BTreeSet::new();
    let mut unknowns = Vec::new();
    let mut redundant = Vec::new();
    for f in &report.findings {
        match f.kind {
            FindingKind::RedundantBarrier => match id_of(f.span.start.line) {
                Some(id) => redundant.push(id),
                None => problems.push(format!(
                    "redundant-barrier finding not on a barrier line: {}",
                    f.message
                )),
            },
            // A note says something about the analysis (an empty model).
            FindingKind::Note => {}
            // An unconfirmed race is the model's race whose witness did not
            // run from source (C's semantics, where the model's may differ,
            // e.g. an unsigned `7 - threadIdx.x < 0`): this test compares
            // the model with its own brute force, so it is a race here.
            FindingKind::DataRace | FindingKind::Unconfirmed => {
                // A finding groups the pairs one barrier would separate;
                // its witness is of the first pair.
                let lines: Vec<(u32, u32)> = if f.pairs.is_empty() {
                    let other = f.related.first().map(|r| r.span.start.line);
                    other.map(|o| (f.span.start.line, o)).into_iter().collect()
                } else {
                    f.pairs
                        .iter()
                        .map(|p| (p.first.start.line, p.second.start.line))
                        .collect()
                };
                let ids: Vec<Option<(usize, usize)>> = lines
                    .iter()
                    .map(|&(x, y)| Some((id_of(x)?, id_of(y)?)))
                    .collect();
                let Some(&Some((a, b))) = ids.first() else {
                    problems.push(format!(
                        "race finding not on access lines: {} ({:?})",
                        f.message, f.span
                    ));
                    continue;
                };
                if ids.iter().any(Option::is_none) {
                    problems.push(format!(
                        "race finding with a pair not on access lines: {}",
                        f.message
                    ));
                }
                for &(x, y) in ids.iter().flatten() {
                    symbolic.insert((x.min(y), x.max(y)));
                }
                // Replay the witness on the concrete executor.
                let Some(w) = &f.witness else {
                    problems.push(format!("race without witness: {}", f.message));
                    continue;
                };
                let launch = Launch {
                    block_dim: w.value("blockDim.x").unwrap_or(1),
                    grid_dim: w.value("gridDim.x").unwrap_or(1),
                    n: w.value("n").unwrap_or(0),
                };
                let threads: Vec<(i64, i64)> = w
                    .threads
                    .iter()
                    .map(|t| (t.thread_idx[0], t.block_idx[0]))
                    .collect();
                let in_range = threads.iter().all(|&(t, b)| {
                    (0..launch.block_dim).contains(&t) && (0..launch.grid_dim).contains(&b)
                }) && w
                    .threads
                    .iter()
                    .all(|t| t.thread_idx[1..] == [0, 0] && t.block_idx[1..] == [0, 0]);
                if !in_range || threads.len() != 2 || threads[0] == threads[1] {
                    problems.push(format!(
                        "witness threads are not two distinct threads of the launch {launch:?}: {threads:?} ({})",
                        f.message
                    ));
                    continue;
                }
                if !races(k, &launch, &threads).contains(&(a.min(b), a.max(b))) {
                    problems.push(format!(
                        "symbolic race does not replay concretely at {launch:?} threads {threads:?}: {}",
                        f.message
                    ));
                }
            }
            // An honest `unknown` (a witness that did not replay) loses
            // precision, not soundness: a concrete race it stands for is
            // still caught below as "not reported symbolically".
            FindingKind::Unknown => {
                unknowns.push(format!("line {}: {}", f.span.start.line + 1, f.message))
            }
            kind => problems.push(format!(
                "unexpected {} finding at line {}: {}",
                kind.code(),
                f.span.start.line + 1,
                f.message
            )),
        }
    }
    for (pair, l) in &concrete {
        if !symbolic.contains(pair) {
            problems.push(format!(
                "concrete race between statements {pair:?} (at {l:?}) not reported symbolically"
            ));
        }
    }
    let status = report.kernels.first().map(|r| r.status.as_str());
    if status == Some("verified") && !concrete.is_empty() {
        problems.push("kernel verified symbolically but races concretely".into());
    }
    // Every redundancy claim is a proof: only on a verified kernel, and
    // removing the barrier adds no race at any small launch.
    if !redundant.is_empty() && status != Some("verified") {
        problems.push(format!(
            "redundant-barrier claims {redundant:?} on a kernel that is {status:?}"
        ));
    }
    for &id in &redundant {
        let reduced = Kernel {
            body: without_barrier(&k.body, id),
        };
        for l in small_launches(k) {
            let threads = all_threads(&l);
            let found = races(&reduced, &l, &threads);
            if let Some(pair) = found.iter().next() {
                problems.push(format!(
                    "barrier {id} was called redundant, but without it statements {pair:?} race at {l:?}"
                ));
                break;
            }
        }
    }
    if !problems.is_empty() {
        problems.push(format!("kernel:\n{src}"));
    }
    if !unknowns.is_empty() {
        unknowns.push(format!("kernel:\n{src}"));
    }
    Outcome {
        problems,
        unknowns,
        concrete_pairs: concrete.len(),
        symbolic_pairs: symbolic.len(),
        redundancy_claims: redundant.len(),
        verified: status == Some("verified"),
    }
}

/// Free-form kernels, then kernels of the shaped family.
const KERNELS: u64 = 200;
const SHAPED_KERNELS: u64 = 120;

#[test]
fn symbolic_and_concrete_races_agree() {
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut imprecise = Vec::new();
    let (mut racy, mut symbolic_only, mut pairs) = (0, 0, 0);
    let (mut claims, mut verified) = (0, 0);
    let total = KERNELS + SHAPED_KERNELS;
    // The kernels are independent: checked on every core, tallied in seed order.
    let seeds: Vec<u64> = (0..total).collect();
    let outcomes = syncscope_tests::on_every_core(&seeds, |_, &seed| {
        let k = if seed < KERNELS {
            generate(seed)
        } else {
            generate_shaped(seed)
        };
        check(&k)
    });
    for (seed, out) in seeds.iter().zip(outcomes) {
        claims += out.redundancy_claims;
        verified += out.verified as u64;
        if !out.problems.is_empty() {
            failures.push(format!("seed {seed}:\n  {}", out.problems.join("\n  ")));
        }
        if !out.unknowns.is_empty() {
            imprecise.push(format!("seed {seed}:\n  {}", out.unknowns.join("\n  ")));
        }
        racy += (out.concrete_pairs > 0) as u64;
        symbolic_only += (out.symbolic_pairs > out.concrete_pairs) as u64;
        pairs += out.concrete_pairs;
    }
    eprintln!(
        "differential: {total} kernels ({KERNELS} free-form, {SHAPED_KERNELS} shaped) in {:.1} s: \
         {racy} race at small sizes ({pairs} racing pairs), {symbolic_only} have races only at \
         larger sizes; {verified} verified, {claims} redundant-barrier claims checked",
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "{} kernels with `unknown` findings (witnesses that did not replay):\n{}",
        imprecise.len(),
        imprecise.join("\n\n")
    );
    // Precision floor: at most 2% of the kernels may end `unknown`.
    assert!(
        imprecise.len() as u64 * 50 <= total,
        "{} of {total} kernels have `unknown` findings (more than 2%)",
        imprecise.len()
    );
    assert!(
        claims > 0 && verified > 0,
        "the generators must produce verified kernels and redundancy claims to check"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} kernels disagree:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
