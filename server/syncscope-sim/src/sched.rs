//! Runs a launch block by block; inside a block, phase by phase: every
//! ready thread runs (in the order asked for) until it synchronises or
//! ends, then warp operations whose lanes have all arrived complete, then
//! a block barrier completes when every thread waits at the same one.

use crate::ast::{cell_types, Program, Space};
use crate::exec::{leaf_type, Env, ShflKind, ThreadState, VoteKind, WarpOp, Yield};
use crate::memory::{compact_block, Buffer};
use crate::value::{Scal, Ty, Value};
use crate::{Fill, Inputs, Launch, Order, Outcome, Scalar, SimOptions};

/// All memory, clocks and counters: owned by whichever thread runs.
pub struct World {
    pub bufs: Vec<Buffer>,
    /// The buffer of each variable of `Program::vars` (this block's for
    /// `__shared__` ones).
    pub var_bufs: Vec<usize>,
    /// Each thread's clock over the lanes of its warp (this phase).
    pub clocks: Vec<[u32; 32]>,
    pub phase: u32,
    pub block_lin: u32,
    pub steps: u64,
    pub max_steps: u64,
    /// The first race between two plain writes of the same value, reported
    /// only if the run finds no other race.
    pub same_value: Option<crate::Race>,
    /// The first race on no line of `SimOptions::race_lines`, when only
    /// those end the run.
    pub other_race: Option<crate::Race>,
    /// The first out-of-bounds access, when the run goes on past them
    /// (`SimOptions::continue_out_of_bounds`).
    pub out_of_bounds: Option<crate::Outcome>,
    block_dim: [u32; 3],
    grid_dim: [u32; 3],
}

impl World {
    pub fn thread_coords(&self, tid: u32) -> [u32; 3] {
        let [bx, by, _] = self.block_dim;
        [tid % bx, (tid / bx) % by, tid / (bx * by)]
    }

    pub fn block_coords(&self, b: u32) -> [u32; 3] {
        let [gx, gy, _] = self.grid_dim;
        [b % gx, (b / gx) % gy, b / (gx * gy)]
    }

    fn reset_clocks(&mut self) {
        for (t, c) in self.clocks.iter_mut().enumerate() {
            *c = [0; 32];
            c[t % 32] = 1;
        }
    }
}

/// A small deterministic generator (splitmix64) for fills and orders.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn fill_value(fill: Fill, i: usize, s: Scal, rng: &mut Rng) -> Value {
    let v = match fill {
        Fill::Zero => Value::Int(0, Scal::I64),
        Fill::Index => Value::Int(i as i128, Scal::I64),
        Fill::Constant(c) => Value::Float(c, Scal::F64),
        Fill::Alternating(even, odd) => Value::Int(
            if i.is_multiple_of(2) { even } else { odd }.into(),
            Scal::I64,
        ),
        Fill::Random(_) => {
            let r = rng.next();
            if s.is_float() {
                Value::Float(
                    (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0,
                    Scal::F64,
                )
            } else {
                Value::Int((r % 16) as i128, Scal::I64)
            }
        }
    };
    v.into_scal(s).unwrap_or(Value::Int(0, s))
}

/// The function that runs as `kernel`: a template kernel runs as asked
/// (`k<64>`) or as its first explicit instantiation in the file.
fn kernel_index(p: &Program, kernel: &str) -> Option<usize> {
    p.requested.or_else(|| {
        let names = p.kernel_names.get(kernel).copied().unwrap_or_default();
        match names.exact {
            Some(i) if p.funcs[i].unsupported.is_none() => Some(i),
            exact => names.instance.or(exact),
        }
    })
}

pub fn kernel_of<'p>(p: &'p Program, kernel: &str) -> Option<&'p crate::ast::Func> {
    kernel_index(p, kernel).map(|i| &p.funcs[i])
}

/// Runs one launch of `p` compiled as `code`; `steps` receives the
/// operations it executed.
pub fn run(
    p: &Program,
    code: &crate::compile::Code,
    kernel: &str,
    launch: &Launch,
    inputs: &Inputs,
    opts: &SimOptions,
    steps: &mut u64,
) -> Outcome {
    let Some(kernel) = kernel_index(p, kernel) else {
        return Outcome::Unsupported(format!("no kernel named `{kernel}`"));
    };
    let k = &p.funcs[kernel];
    if let Some(why) = &k.unsupported {
        return Outcome::Unsupported(why.clone());
    }
    let threads: u64 = launch.block.iter().map(|&d| u64::from(d)).product();
    let run_grid = match opts.blocks_run {
        Some(r) => [0, 1, 2].map(|d| r[d].clamp(1, launch.grid[d].max(1))),
        None => launch.grid,
    };
    let blocks: u64 = run_grid.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || blocks == 0 || launch.grid.contains(&0) {
        return Outcome::Unsupported("an empty launch".into());
    }
    if threads > 1024 {
        return Outcome::Unsupported("more than 1024 threads per block".into());
    }
    if blocks * threads > 1 << 16 {
        return Outcome::Unsupported("a launch of more than 65536 threads".into());
    }
    let mut world = Box::new(World {
        bufs: Vec::new(),
        var_bufs: vec![usize::MAX; p.vars.len()],
        clocks: vec![[0; 32]; threads as usize],
        phase: 0,
        block_lin: 0,
        steps: 0,
        max_steps: opts.max_steps,
        same_value: None,
        other_race: None,
        out_of_bounds: None,
        block_dim: launch.block,
        grid_dim: launch.grid,
    });
    let mut rng = Rng(match inputs.fill {
        Fill::Random(s) => s,
        _ => 0,
    });
    // One buffer per pointer parameter; scalars from the inputs.
    let mut args = Vec::new();
    for param in &k.params {
        match &param.ty {
            Ty::Ptr(to) if matches!(**to, Ty::S(_) | Ty::Struct(..)) => {
                let mut cells = Vec::new();
                cell_types(to, &p.structs, &mut cells);
                let mut data = Vec::with_capacity(inputs.buffer_len * cells.len());
                for i in 0..inputs.buffer_len {
                    for c in &cells {
                        data.push(match c {
                            Ty::S(s) => fill_value(inputs.fill, i, *s, &mut rng),
                            other => Value::zero(other),
                        });
                    }
                }
                world.bufs.push(Buffer::new(param.name.clone(), data, true));
                args.push(Value::Ptr(crate::value::Ptr {
                    buf: world.bufs.len() - 1,
                    off: 0,
                    to: (**to).clone(),
                }));
            }
            Ty::Ptr(_) => {
                return Outcome::Unsupported(format!(
                    "the parameter `{}` (a pointer to a non-scalar)",
                    param.name
                ));
            }
            Ty::S(_) => {
                let v = match inputs.scalars.get(&param.name) {
                    Some(Scalar::Int(i)) => Value::Int((*i).into(), Scal::I64),
                    Some(Scalar::Float(f)) => Value::Float(*f, Scal::F64),
                    None => Value::Int(0, Scal::I64),
                };
                match v.convert(&param.ty) {
                    Ok(v) => args.push(v),
                    Err(e) => return Outcome::Unsupported(e),
                }
            }
            _ => {
                return Outcome::Unsupported(format!("the parameter `{}`'s type", param.name));
            }
        }
    }
    for (i, v) in p.vars.iter().enumerate() {
        if v.space == Space::Global {
            let mut cells = Vec::new();
            cell_types(&v.ty, &p.structs, &mut cells);
            let data = match &v.init {
                // Initialised in the source: those values, then zeros.
                Some(init) => {
                    let mut data = Vec::with_capacity(cells.len());
                    for (j, c) in cells.iter().enumerate() {
                        data.push(match init.get(j) {
                            Some(x) => match x.clone().convert(c) {
                                Ok(x) => x,
                                Err(e) => return Outcome::Unsupported(e),
                            },
                            None => Value::zero(c),
                        });
                    }
                    data
                }
                None => cells
                    .iter()
                    .enumerate()
                    .map(|(j, c)| match c {
                        Ty::S(s) => fill_value(inputs.fill, j, *s, &mut rng),
                        other => Value::zero(other),
                    })
                    .collect(),
            };
            world.bufs.push(Buffer::new(v.name.clone(), data, true));
            world.var_bufs[i] = world.bufs.len() - 1;
        }
    }
    // Only the `__shared__` arrays the kernel's code can name are given
    // to each block.
    let reached = code.vars_reached(kernel, p.vars.len());
    // Blocks run one after the other, in the order asked for too: no
    // block is ordered with another, so the order changes only values
    // (what an atomic returns to which block).
    let [gx, gy, gz] = launch.grid;
    if u64::from(gx) * u64::from(gy) * u64::from(gz) > u64::from(u32::MAX) {
        return Outcome::Unsupported("a grid of more than 2^32 blocks".into());
    }
    let mut ids: Vec<u32> = Vec::new();
    for z in 0..run_grid[2] {
        for y in 0..run_grid[1] {
            for x in 0..run_grid[0] {
                ids.push(x + gx * (y + gy * z));
            }
        }
    }
    order(&mut ids, opts.order, 0x0b10_c000);
    for b in ids {
        let block = [b % gx, (b / gx) % gy, b / (gx * gy)];
        // This block's shared memory. Every `extern __shared__`
        // array starts at the same address: one buffer for all of
        // them (of one element type; views of other types are
        // not modelled).
        let mut dynamic: Option<(usize, Ty)> = None;
        for (i, v) in p.vars.iter().enumerate() {
            if v.space != Space::Shared || !reached[i] {
                continue;
            }
            let leaf = leaf_type(&v.ty);
            if v.dynamic {
                if let Some((buf, ty)) = &dynamic {
                    world.var_bufs[i] = if *ty == leaf { *buf } else { usize::MAX };
                    continue;
                }
            }
            let cells = if v.dynamic {
                inputs.buffer_len
            } else {
                v.ty.cells()
            };
            world.bufs.push(Buffer::new(
                v.name.clone(),
                vec![Value::zero(&leaf); cells],
                true,
            ));
            world.var_bufs[i] = world.bufs.len() - 1;
            if v.dynamic {
                dynamic = Some((world.bufs.len() - 1, leaf));
            }
        }
        world.block_lin = b;
        world.phase = 0;
        world.reset_clocks();
        let env = Env {
            prog: p,
            code,
            block,
            block_dim: launch.block,
            grid_dim: launch.grid,
            preempt_atomics: matches!(opts.order, Order::Interleaved(_)),
            continue_out_of_bounds: opts.continue_out_of_bounds,
            race_lines: opts.race_lines.as_deref(),
        };
        if let Some(out) = run_block(&env, kernel, &args, &mut world, opts) {
            *steps = world.steps;
            return out;
        }
        for buf in &mut world.bufs {
            compact_block(buf, b);
        }
    }
    *steps = world.steps;
    // A same-value race on the lines asked for (all lines, without
    // `race_lines`) first; then a skipped out-of-bounds access (what the
    // run did not do may have raced), then a race on other lines.
    match (
        world.same_value.take(),
        world.out_of_bounds.take(),
        world.other_race.take(),
    ) {
        (Some(r), _, _) => Outcome::Race(r),
        (None, Some(oob), _) => oob,
        (None, None, Some(r)) => Outcome::Race(r),
        (None, None, None) => Outcome::Clean,
    }
}

enum State {
    /// Runs next, first receiving the result of the synchronisation it
    /// stopped at (none at its start).
    Ready(Option<Value>),
    Barrier {
        key: (usize, Vec<u64>),
        line: usize,
        pred: Option<bool>,
    },
    Warp {
        op: WarpOp,
        mask: u32,
        line: usize,
    },
    Done,
}

fn order(ids: &mut [u32], o: Order, salt: u64) {
    match o {
        Order::Forward => ids.sort_unstable(),
        Order::Reverse => {
            ids.sort_unstable();
            ids.reverse();
        }
        Order::Seeded(s) | Order::Interleaved(s) => {
            ids.sort_unstable();
            let mut r = Rng(s ^ salt.wrapping_mul(0x2545_f491_4f6c_dd1d));
            for i in (1..ids.len()).rev() {
                let j = (r.next() % (i as u64 + 1)) as usize;
                ids.swap(i, j);
            }
        }
    }
}

/// Runs one block to its end; the outcome that stopped it, if any.
fn run_block(
    env: &Env,
    kernel: usize,
    args: &[Value],
    world: &mut World,
    opts: &SimOptions,
) -> Option<Outcome> {
    let block = env.block;
    let n = env.block_dim.iter().product::<u32>() as usize;
    let coords = |tid: usize| -> [u32; 3] {
        let [bx, by, _] = env.block_dim;
        let t = tid as u32;
        [t % bx, (t / bx) % by, t / (bx * by)]
    };
    let mut threads: Vec<ThreadState> = (0..n)
        .map(|t| ThreadState::new(t as u32, coords(t), env, kernel, args))
        .collect();
    let mut state: Vec<State> = (0..n).map(|_| State::Ready(None)).collect();
    let mut salt = 0u64;
    loop {
        // Run every ready thread to its next synchronisation.
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|&t| matches!(state[t as usize], State::Ready(_)))
            .collect();
        salt += 1;
        order(&mut ready, opts.order, salt);
        for t in ready {
            let t = t as usize;
            if let State::Ready(Some(v)) = std::mem::replace(&mut state[t], State::Done) {
                threads[t].resume_with(v);
            }
            state[t] = match threads[t].run(env, world) {
                Yield::Stop(o) => return Some(o),
                Yield::Done => State::Done,
                Yield::Preempted => State::Ready(None),
                Yield::Barrier { key, line, pred } => State::Barrier { key, line, pred },
                Yield::Warp { op, mask, line } => State::Warp { op, mask, line },
            };
        }
        if state.iter().any(|s| matches!(s, State::Ready(_))) {
            // Threads preempted after an atomic go on first.
            continue;
        }
        // Warp operations whose lanes have all arrived.
        match release_warps(&mut state, world, n) {
            Err(o) => return Some(o),
            Ok(true) => continue,
            Ok(false) => {}
        }
        if state.iter().all(|s| matches!(s, State::Done)) {
            return None;
        }
        // A lane waits at a warp operation that cannot complete.
        if let Some((t, line, mask)) = state.iter().enumerate().find_map(|(t, s)| match s {
            State::Warp { line, mask, .. } => Some((t, *line, *mask)),
            _ => None,
        }) {
            let base = t / 32 * 32;
            let mask = mask & existing_lanes(base, n);
            let missing = (0..32)
                .filter(|l| mask & (1 << l) != 0)
                .map(|l| base + l)
                .find(|&u| !matches!(&state[u], State::Warp { mask: m, .. } if *m & existing_lanes(base, n) == mask))
                .unwrap_or(t);
            return Some(Outcome::Divergence {
                block,
                thread_a: coords(t),
                thread_b: coords(missing),
                line,
            });
        }
        // Every thread is at a barrier or done: a barrier completes only if
        // all are at the same one.
        let (first, key0, line0) = state.iter().enumerate().find_map(|(t, s)| match s {
            State::Barrier { key, line, .. } => Some((t, key.clone(), *line)),
            _ => None,
        })?;
        for (t, s) in state.iter().enumerate() {
            let same = matches!(s, State::Barrier { key, .. } if *key == key0);
            if !same {
                return Some(Outcome::Divergence {
                    block,
                    thread_a: coords(first),
                    thread_b: coords(t),
                    line: line0,
                });
            }
        }
        let count = state
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    State::Barrier {
                        pred: Some(true),
                        ..
                    }
                )
            })
            .count();
        let total = n as i128;
        for s in state.iter_mut() {
            let r = match s {
                State::Barrier {
                    pred: Some(_),
                    key: (_, _),
                    ..
                } => Some(count as i128),
                _ => None,
            };
            *s = State::Ready(Some(match r {
                Some(c) => Value::int(c),
                None => Value::Void,
            }));
        }
        let _ = total;
        world.phase += 1;
        world.reset_clocks();
    }
}

/// The lanes of the warp starting at thread `base` that the block has (a
/// partial last warp has fewer than 32).
fn existing_lanes(base: usize, n: usize) -> u32 {
    let have = n.saturating_sub(base).min(32);
    if have == 32 {
        u32::MAX
    } else {
        (1u32 << have) - 1
    }
}

/// Completes every warp operation whose mask's lanes all wait at a warp
/// operation with the same mask: their clocks join, shuffles and votes get
/// their values. Whether any completed.
fn release_warps(state: &mut [State], w: &mut World, n: usize) -> Result<bool, Outcome> {
    let mut any = false;
    for t in 0..n {
        let (mask, kind_of) = match &state[t] {
            State::Warp { mask, op, .. } => (*mask, std::mem::discriminant(op)),
            _ => continue,
        };
        let base = t / 32 * 32;
        let lane = t % 32;
        if mask & (1 << lane) == 0 {
            return Err(Outcome::Unsupported(
                "a lane calling a warp operation outside its own mask".into(),
            ));
        }
        // Lanes past the end of the block's last warp do not exist, and
        // nothing waits for them.
        let have = existing_lanes(base, n);
        let lanes: Vec<usize> = (0..32)
            .filter(|l| mask & have & (1 << l) != 0)
            .map(|l| base + l)
            .collect();
        let all_here = lanes
            .iter()
            .all(|&u| matches!(&state[u], State::Warp { mask: m, .. } if *m == mask));
        if !all_here {
            continue;
        }
        let same_op = lanes.iter().all(|&u| {
            matches!(&state[u], State::Warp { op, .. } if std::mem::discriminant(op) == kind_of)
        });
        if !same_op {
            return Err(Outcome::Unsupported(
                "different warp operations meeting under one mask".into(),
            ));
        }
        // Join the lanes' clocks, then each lane moves on to a new epoch.
        let mut joined = [0u32; 32];
        for &u in &lanes {
            for (j, c) in joined.iter_mut().zip(w.clocks[u].iter()) {
                *j = (*j).max(*c);
            }
        }
        for &u in &lanes {
            w.clocks[u] = joined;
            w.clocks[u][u % 32] += 1;
        }
        let ops: Vec<WarpOp> = lanes
            .iter()
            .map(|&u| match &state[u] {
                State::Warp { op, .. } => op.clone(),
                _ => unreachable!("checked above"),
            })
            .collect();
        let lane_value = |l: usize| -> Option<&WarpOp> {
            lanes.iter().position(|&u| u == base + l).map(|i| &ops[i])
        };
        let mut results = Vec::new();
        for (i, &u) in lanes.iter().enumerate() {
            let me = u % 32;
            let r = match &ops[i] {
                WarpOp::Sync => Value::Void,
                WarpOp::Vote { kind, .. } => {
                    let preds: Vec<(usize, bool)> = lanes
                        .iter()
                        .zip(&ops)
                        .map(|(&v, o)| match o {
                            WarpOp::Vote { pred, .. } => (v % 32, *pred),
                            _ => (v % 32, false),
                        })
                        .collect();
                    match kind {
                        VoteKind::Ballot => Value::uint(
                            preds
                                .iter()
                                .filter(|(_, p)| *p)
                                .fold(0u32, |m, (l, _)| m | (1 << l))
                                .into(),
                        ),
                        VoteKind::All => Value::int(preds.iter().all(|(_, p)| *p).into()),
                        VoteKind::Any => Value::int(preds.iter().any(|(_, p)| *p).into()),
                    }
                }
                WarpOp::Shfl {
                    kind,
                    value,
                    lane,
                    width,
                } => {
                    let wd = *width as usize;
                    let seg = me / wd * wd;
                    let src = match kind {
                        ShflKind::Idx => Some(seg + (*lane as usize & (wd - 1))),
                        ShflKind::Up => {
                            let s = me as i64 - lane;
                            (s >= seg as i64).then_some(s as usize)
                        }
                        ShflKind::Down => {
                            let s = me as i64 + lane;
                            (s < (seg + wd) as i64 && s >= 0).then_some(s as usize)
                        }
                        ShflKind::Xor => {
                            let s = me ^ (*lane as usize & 31);
                            (s / wd == me / wd).then_some(s)
                        }
                    };
                    match src {
                        None => value.clone(),
                        Some(s) => match lane_value(s) {
                            Some(WarpOp::Shfl { value: v, .. }) => v.clone(),
                            _ => {
                                return Err(Outcome::Unsupported(
                                    "a shuffle reading a lane outside its mask".into(),
                                ))
                            }
                        },
                    }
                }
            };
            results.push(r);
        }
        for (&u, r) in lanes.iter().zip(results) {
            state[u] = State::Ready(Some(r));
        }
        any = true;
    }
    Ok(any)
}
