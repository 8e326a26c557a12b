//! Buffers, and the happens-before check of every access to global and
//! shared memory.
//!
//! Ordering inside a block has two parts. A block barrier orders every
//! access of the block before it before every access after it: each access
//! records the block's barrier `phase`, and an earlier phase is ordered.
//! Inside a phase only warp synchronisation orders threads, and only lanes
//! of one warp, so a thread's vector clock has 32 entries, one per lane of
//! its warp. Two blocks are never ordered.

use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Atomic,
}

#[derive(Clone, Copy, Debug)]
pub struct Rec {
    pub block: u32,
    pub tid: u32,
    pub phase: u32,
    pub epoch: u32,
    pub kind: Kind,
    pub line: u32,
    /// What a plain write stored (its bits), to tell a same-value race.
    pub value: u128,
}

/// What an access met.
pub enum Clash {
    None,
    /// Two plain writes of the same value, unordered: a race, but one the
    /// checker calls benign. The run goes on looking for another.
    SameValue(Rec),
    Race(Rec),
}

pub struct Buffer {
    pub name: String,
    pub data: Vec<Value>,
    /// Global and shared memory are checked; a thread's local arrays are not.
    pub tracked: bool,
    /// One history per element, allocated on its first access: `None` is
    /// all-zero bits, so a large buffer's histories cost no page until
    /// touched.
    hist: Vec<Option<Box<Cell>>>,
    /// The elements the running block recorded an access to, each once
    /// (`Cell::touched`): compacting after the block visits only them, not
    /// every element of a large buffer.
    touched: Vec<u32>,
}

/// The accesses an element keeps: reads apart from writes and atomics, so
/// that a read (which conflicts with writes only) does not walk the reads
/// of every other thread.
#[derive(Clone, Default)]
struct Cell {
    reads: Vec<Rec>,
    writes: Vec<Rec>,
    /// In `Buffer::touched` since the last compaction.
    touched: bool,
}

impl Buffer {
    pub fn new(name: String, data: Vec<Value>, tracked: bool) -> Buffer {
        let hist = if tracked {
            vec![None; data.len()]
        } else {
            Vec::new()
        };
        Buffer {
            name,
            data,
            tracked,
            hist,
            touched: Vec::new(),
        }
    }
}

/// Where a thread is, for the happens-before check.
pub struct Who<'a> {
    pub block: u32,
    pub tid: u32,
    pub phase: u32,
    /// The thread's clock over the lanes of its warp.
    pub clock: &'a [u32; 32],
}

/// Records an access to element `off` of `buf` (in bounds), or returns the
/// earlier access it races with.
pub fn check(
    buf: &mut Buffer,
    off: usize,
    who: &Who,
    kind: Kind,
    line: usize,
    value: u128,
) -> Clash {
    if !buf.tracked {
        return Clash::None;
    }
    let cell = buf.hist[off].get_or_insert_with(Default::default);
    let mine = Rec {
        block: who.block,
        tid: who.tid,
        phase: who.phase,
        epoch: who.clock[(who.tid % 32) as usize],
        kind,
        line: line as u32,
        value,
    };
    let mut benign = None;
    let others: &[Rec] = if kind == Kind::Read { &[] } else { &cell.reads };
    for r in cell.writes.iter().chain(others) {
        if r.block == who.block && r.tid == who.tid {
            continue;
        }
        if kind == Kind::Atomic && r.kind == Kind::Atomic {
            continue;
        }
        let ordered = r.block == who.block
            && (r.phase < who.phase
                || (r.tid / 32 == who.tid / 32 && r.epoch <= who.clock[(r.tid % 32) as usize]));
        if !ordered {
            if kind == Kind::Write && r.kind == Kind::Write && r.value == value {
                benign.get_or_insert(*r);
                continue;
            }
            return Clash::Race(*r);
        }
    }
    let met = match benign {
        Some(r) => Clash::SameValue(r),
        None => Clash::None,
    };
    let list = if kind == Kind::Read {
        &mut cell.reads
    } else {
        &mut cell.writes
    };
    // The same thread's access of the same kind with the same clock is
    // ordered exactly as this one: keep the earlier (its line is the first
    // of the pair). A thread runs its phase without interruption, so its
    // latest access to the element is the last record.
    if list.last().is_some_and(|r| {
        r.block == mine.block
            && r.tid == mine.tid
            && r.kind == kind
            && r.phase == mine.phase
            && r.epoch == mine.epoch
            && r.value == value
    }) {
        return met;
    }
    // The thread's own older access of this kind is dominated by this one;
    // an access of an earlier phase of this block is ordered before every
    // later access of the block, and only other blocks still need it, for
    // which one record per kind and block serves.
    list.retain(|r| {
        let stale =
            r.block == who.block && r.kind == kind && (r.tid == who.tid || r.phase < who.phase);
        !stale
    });
    list.push(mine);
    if !cell.touched {
        cell.touched = true;
        buf.touched.push(off as u32);
    }
    met
}

/// After a block ends: its records are only needed by later blocks, and
/// one per element and kind is enough for them (no later access is ordered
/// with any of them).
pub fn compact_block(buf: &mut Buffer, block: u32) {
    if !buf.tracked {
        return;
    }
    // Elements the block did not record an access to hold no record of it.
    for off in std::mem::take(&mut buf.touched) {
        let Some(cell) = buf.hist[off as usize].as_deref_mut() else {
            continue;
        };
        cell.touched = false;
        for list in [&mut cell.reads, &mut cell.writes] {
            let mut seen = [false; 3];
            list.retain(|r| {
                if r.block != block {
                    return true;
                }
                let k = r.kind as usize;
                !std::mem::replace(&mut seen[k], true)
            });
        }
    }
}
