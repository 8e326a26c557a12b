//! Runs a launch block by block; inside a block, phase by phase: every
//! ready thread runs (in the order asked for) until it synchronises or
//! ends, then warp operations whose lanes have all arrived complete, then
//! a block barrier completes when every thread waits at the same one.

use std::sync::mpsc::{channel, Receiver, Sender};

use crate::ast::{Func, Program, Space};
use crate::exec::{leaf_type, Resume, ShflKind, Thread, VoteKind, WarpOp, Yield};
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

pub fn run(
    p: &Program,
    kernel: &str,
    launch: &Launch,
    inputs: &Inputs,
    opts: &SimOptions,
) -> Outcome {
    let Some(k) = p.funcs.iter().find(|f| f.global && f.name == kernel) else {
        return Outcome::Unsupported(format!("no kernel named `{kernel}`"));
    };
    if let Some(why) = &k.unsupported {
        return Outcome::Unsupported(why.clone());
    }
    let threads: u64 = launch.block.iter().map(|&d| u64::from(d)).product();
    let blocks: u64 = launch.grid.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || blocks == 0 {
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
            Ty::Ptr(to) => {
                let Ty::S(s) = **to else {
                    return Outcome::Unsupported(format!(
                        "the parameter `{}` (a pointer to a non-scalar)",
                        param.name
                    ));
                };
                let data = (0..inputs.buffer_len)
                    .map(|i| fill_value(inputs.fill, i, s, &mut rng))
                    .collect();
                world.bufs.push(Buffer::new(param.name.clone(), data, true));
                args.push(Value::Ptr(crate::value::Ptr {
                    buf: world.bufs.len() - 1,
                    off: 0,
                    to: (**to).clone(),
                }));
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
            let leaf = leaf_type(&v.ty);
            let Ty::S(s) = leaf else {
                continue;
            };
            let data = (0..v.ty.cells())
                .map(|j| fill_value(inputs.fill, j, s, &mut rng))
                .collect();
            world.bufs.push(Buffer::new(v.name.clone(), data, true));
            world.var_bufs[i] = world.bufs.len() - 1;
        }
    }
    let [gx, gy, gz] = launch.grid;
    let mut b = 0u32;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let block = [x, y, z];
                // This block's shared memory.
                for (i, v) in p.vars.iter().enumerate() {
                    if v.space != Space::Shared {
                        continue;
                    }
                    let leaf = leaf_type(&v.ty);
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
                }
                world.block_lin = b;
                world.phase = 0;
                world.reset_clocks();
                let (w, out) = run_block(p, k, &args, launch, block, world, opts);
                if let Some(out) = out {
                    return out;
                }
                let Some(w) = w else {
                    return Outcome::Unsupported("internal: the world was lost".into());
                };
                world = w;
                for buf in &mut world.bufs {
                    compact_block(buf, b);
                }
                b += 1;
            }
        }
    }
    Outcome::Clean
}

enum State {
    Ready(Value),
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
        Order::Seeded(s) => {
            ids.sort_unstable();
            let mut r = Rng(s ^ salt.wrapping_mul(0x2545_f491_4f6c_dd1d));
            for i in (1..ids.len()).rev() {
                let j = (r.next() % (i as u64 + 1)) as usize;
                ids.swap(i, j);
            }
        }
    }
}

type Msg = (u32, Option<Box<World>>, Yield);

fn run_block(
    p: &Program,
    k: &Func,
    args: &[Value],
    launch: &Launch,
    block: [u32; 3],
    world: Box<World>,
    opts: &SimOptions,
) -> (Option<Box<World>>, Option<Outcome>) {
    let n = launch.block.iter().product::<u32>() as usize;
    let (tx, rx): (Sender<Msg>, Receiver<Msg>) = channel();
    let mut world = Some(world);
    std::thread::scope(|scope| {
        let mut to_threads: Vec<Sender<Resume>> = Vec::with_capacity(n);
        for tid in 0..n as u32 {
            let (rtx, rrx) = channel();
            to_threads.push(rtx);
            let coords = {
                let [bx, by, _] = launch.block;
                [tid % bx, (tid / bx) % by, tid / (bx * by)]
            };
            let t = Thread::new(
                p,
                tid,
                coords,
                block,
                launch.block,
                launch.grid,
                tx.clone(),
                rrx,
            );
            let args = args.to_vec();
            let tx2 = tx.clone();
            let spawned = std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(scope, move || {
                    let r =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.main(k, args)));
                    if r.is_err() {
                        let _ = tx2.send((
                            tid,
                            None,
                            Yield::Stop(Outcome::Unsupported(
                                "internal error in the simulator".into(),
                            )),
                        ));
                    }
                });
            if spawned.is_err() {
                for t in &to_threads {
                    let _ = t.send(Resume::Abort);
                }
                return Some(Outcome::Unsupported("could not start a thread".into()));
            }
        }
        let out = schedule(&to_threads, &rx, &mut world, launch, block, opts);
        // Whatever happened, every thread still waiting unwinds.
        for t in &to_threads {
            let _ = t.send(Resume::Abort);
        }
        out
    })
    .map_or((world.take(), None), |o| (None, Some(o)))
}

fn schedule(
    to: &[Sender<Resume>],
    rx: &Receiver<Msg>,
    world: &mut Option<Box<World>>,
    launch: &Launch,
    block: [u32; 3],
    opts: &SimOptions,
) -> Option<Outcome> {
    let n = to.len();
    let mut state: Vec<State> = (0..n).map(|_| State::Ready(Value::Void)).collect();
    let mut salt = 0u64;
    let coords = |tid: usize| -> [u32; 3] {
        let [bx, by, _] = launch.block;
        let t = tid as u32;
        [t % bx, (t / bx) % by, t / (bx * by)]
    };
    loop {
        // Run every ready thread to its next synchronisation.
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|&t| matches!(state[t as usize], State::Ready(_)))
            .collect();
        salt += 1;
        order(&mut ready, opts.order, salt);
        for t in ready {
            let v = match std::mem::replace(&mut state[t as usize], State::Done) {
                State::Ready(v) => v,
                _ => unreachable!("only ready threads are run"),
            };
            let w = world.take()?;
            if to[t as usize].send(Resume::Go(w, v)).is_err() {
                return Some(Outcome::Unsupported(
                    "internal: a thread ended early".into(),
                ));
            }
            let Ok((_, w, y)) = rx.recv() else {
                return Some(Outcome::Unsupported("internal: a thread vanished".into()));
            };
            *world = w;
            state[t as usize] = match y {
                Yield::Stop(o) => return Some(o),
                Yield::Done => State::Done,
                Yield::Barrier { key, line, pred } => State::Barrier { key, line, pred },
                Yield::Warp { op, mask, line } => State::Warp { op, mask, line },
            };
            world.as_ref()?;
        }
        // Warp operations whose lanes have all arrived.
        match release_warps(&mut state, world.as_mut()?, n, block, &coords) {
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
            let missing = (0..32)
                .filter(|l| mask & (1 << l) != 0)
                .map(|l| base + l)
                .find(|&u| {
                    u >= n || !matches!(&state[u], State::Warp { mask: m, .. } if *m == mask)
                })
                .unwrap_or(t);
            if missing >= n {
                return Some(Outcome::Unsupported(
                    "a warp mask naming lanes the block does not have".into(),
                ));
            }
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
        for s in state.iter_mut() {
            *s = State::Ready(Value::int(count as i128));
        }
        let w = world.as_mut()?;
        w.phase += 1;
        w.reset_clocks();
    }
}

/// Completes every warp operation whose mask's lanes all wait at a warp
/// operation with the same mask: their clocks join, shuffles and votes get
/// their values. Whether any completed.
fn release_warps(
    state: &mut [State],
    w: &mut World,
    n: usize,
    _block: [u32; 3],
    _coords: &dyn Fn(usize) -> [u32; 3],
) -> Result<bool, Outcome> {
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
        let lanes: Vec<usize> = (0..32)
            .filter(|l| mask & (1 << l) != 0)
            .map(|l| base + l)
            .collect();
        let all_here = lanes
            .iter()
            .all(|&u| u < n && matches!(&state[u], State::Warp { mask: m, .. } if *m == mask));
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
            state[u] = State::Ready(r);
        }
        any = true;
    }
    Ok(any)
}
