//! The names of the model's symbols: the one place that says how a
//! variable's name encodes what it stands for. The front end names values
//! (`x#3`, a fresh unknown; `x#3⟨i@0⟩`, one made inside a loop, a copy per
//! iteration; `unseen:slot`, a value of code the analysis cannot see;
//! `x⟦other⟧`, the other thread's copy in a specification); the verifier
//! names each thread's copy (`x#1`, `threadIdx.x#2`) and its own variables
//! (`sel1`, the selector of thread 1's access in a grouped race query).
//!
//! Names are built from source text, never from positions, so an edit
//! elsewhere keeps them (and the queries that use them) unchanged.

/// The names of the three dimensions of `threadIdx`, `blockDim`, ...
pub const DIMS: [&str; 3] = ["x", "y", "z"];

/// Opens and closes the loop counters of an iteration-tagged name.
const TAG_OPEN: char = '⟨';
const TAG_CLOSE: char = '⟩';

/// Prefix of a value computed by code the analysis cannot see.
pub const UNSEEN_PREFIX: &str = "unseen:";

/// Prefix of a host value named by a launch fact (`host.width`, a
/// parameter of the host function the kernel is not passed): a C
/// identifier, since the fact is read as a `__requires`, that no CUDA
/// program spells (names with two underscores are the implementation's).
pub const HOST_VALUE_PREFIX: &str = "__syncscope_host_";

/// The integer types a host value may have, by the code its name carries,
/// with their ranges (`int_range`'s).
const HOST_VALUE_TYPES: [(&str, (i64, i64)); 9] = [
    ("b", (0, 1)),
    ("i8", (-128, 127)),
    ("u8", (0, 255)),
    ("i16", (-32768, 32767)),
    ("u16", (0, 65535)),
    ("i32", (i32::MIN as i64, i32::MAX as i64)),
    ("u32", (0, u32::MAX as i64)),
    ("i64", (i64::MIN, i64::MAX)),
    ("u64", (0, i64::MAX)),
];

/// A host value's name: the prefix, the code of its type's range, and the
/// host expression it stands for as a path (`size__width` for
/// `size.width`): `__syncscope_host_i32_size__width`. `None` for a range
/// of no known integer type.
pub fn host_value(range: (i64, i64), path: &str) -> Option<String> {
    let (code, _) = HOST_VALUE_TYPES.iter().find(|(_, r)| *r == range)?;
    Some(format!("{HOST_VALUE_PREFIX}{code}_{path}"))
}

/// The range of the host value named `name` (`host_value`'s name).
pub fn host_value_range(name: &str) -> Option<(i64, i64)> {
    let rest = name.strip_prefix(HOST_VALUE_PREFIX)?;
    let (code, _) = rest.split_once('_')?;
    HOST_VALUE_TYPES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, r)| *r)
}

/// Suffix of a variable that stands for the other thread's copy of it
/// (GPUVerify's `__other_int(x)`).
pub const OTHER_THREAD: &str = "⟦other⟧";

/// The tag of a value made inside loops whose counters are `counters`
/// (empty outside loops): `⟨i@0,j@0⟩`.
pub fn iteration_tag(counters: &[String]) -> String {
    if counters.is_empty() {
        String::new()
    } else {
        format!("{TAG_OPEN}{}{TAG_CLOSE}", counters.join(","))
    }
}

/// A fresh value's name: the source text it stands for, a number, and the
/// iteration tag.
pub fn fresh(base: &str, n: usize, tag: &str) -> String {
    format!("{base}#{n}{tag}")
}

/// Whether a name carries an iteration tag (a copy per loop iteration).
pub fn is_iteration_tagged(name: &str) -> bool {
    name.contains(TAG_OPEN)
}

/// `x#0⟨i@0,j@0⟩` → (`x#0`, `i@0,j@0`).
pub fn split_iteration_tag(name: &str) -> Option<(&str, &str)> {
    let (base, rest) = name.split_once(TAG_OPEN)?;
    Some((base, rest.strip_suffix(TAG_CLOSE)?))
}

/// The value that the read named `read` returned to the thread which
/// wrote what statement `statement` stored into the `__shared__` cell that
/// the read named `reader` (base `reader`, iteration tag `tag`) reads back:
/// `hash#0@s[t]#1.0⟨i@0⟩` (one per reader, writing statement and iteration).
pub fn forwarded(read: &str, reader: &str, statement: usize, tag: &str) -> String {
    format!("{read}@{reader}.{statement}{tag}")
}

/// Whether `c` may not appear in a name's base (the tag's brackets).
pub fn is_tag_bracket(c: char) -> bool {
    c == TAG_OPEN || c == TAG_CLOSE
}

/// Thread `t`'s copy of a value (`t` is 1 or 2 in a two-thread query).
pub fn for_thread(name: &str, t: u8) -> String {
    format!("{name}#{t}")
}

/// Thread `t`'s `threadIdx` in dimension `d`: `threadIdx.x#1`.
pub fn thread_idx(d: usize, t: u8) -> String {
    for_thread(&format!("threadIdx.{}", DIMS[d]), t)
}

/// Thread `t`'s `blockIdx` in dimension `d`: `blockIdx.y#2`.
pub fn block_idx(d: usize, t: u8) -> String {
    for_thread(&format!("blockIdx.{}", DIMS[d]), t)
}

/// Prefix of the condition that code runs after a fenced atomic.
const FENCED_PREFIX: &str = "fenced:";

/// The base name of the condition that code runs after `__threadfence()`
/// and an atomic on `target`.
pub fn fenced(target: &str) -> String {
    format!("{FENCED_PREFIX}{target}")
}

/// For such a condition's (fresh or instantiated) name, the atomic's target.
pub fn fenced_target(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(FENCED_PREFIX)?;
    Some(&rest[..rest.find('#').unwrap_or(rest.len())])
}

/// The base name of the flag "this thread left the loop with counter
/// `counter` by a `break` in an earlier iteration" (the guards of a loop a
/// thread may leave early carry its negation).
pub fn loop_exited(counter: &str) -> String {
    format!("{EXITED_PREFIX}{counter}")
}

/// Whether a (fresh or instantiated) name is such a flag.
pub fn is_loop_exited(name: &str) -> bool {
    name.starts_with(EXITED_PREFIX)
}

const EXITED_PREFIX: &str = "exited@";

/// The base name of a block's ticket from the fenced increment of
/// `target` (the last-block pattern).
pub fn last_ticket(target: &str) -> String {
    format!("lastticket:{target}")
}

/// Whether a (fresh or instantiated) name is a value `atomicInc` returned
/// outside the last-block pattern (`atomicInc#0`, `atomicInc_block#1`).
pub fn is_atomic_inc_result(name: &str) -> bool {
    name.strip_prefix("atomicInc")
        .is_some_and(|rest| rest.starts_with('#') || rest.starts_with('_'))
}

/// Prefix of the condition that a thread holds a lock.
const LOCK_PREFIX: &str = "lock:";

/// The base name of the condition that a thread holds the lock `target`.
pub fn lock(target: &str) -> String {
    format!("{LOCK_PREFIX}{target}")
}

/// For such a condition's (fresh or instantiated) name, the lock's text.
pub fn held_lock(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(LOCK_PREFIX)?;
    Some(&rest[..rest.find('#').unwrap_or(rest.len())])
}

/// Prefix of the value an atomic add on a counter returns (a ticket).
const TICKET_PREFIX: &str = "ticket:";

/// The base name of the tickets of counter cell `index` of array `array`.
pub fn ticket(array: usize, index: i64) -> String {
    format!("{TICKET_PREFIX}{array}:{index}")
}

/// For a (fresh or instantiated) ticket's name, its counter
/// (`ticket:3:0#1#2` → `3:0`).
pub fn ticket_counter(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(TICKET_PREFIX)?;
    Some(&rest[..rest.find('#').unwrap_or(rest.len())])
}

/// Prefix of the value an `atomicCAS`/`atomicExch` on a one-shot flag
/// returns (`Kernel::flag_cells`).
const WINNER_PREFIX: &str = "winner:";

/// Which results of a one-shot flag's update mean the update changed the
/// flag (the thread "won"): at most one update ever does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Win {
    /// `atomicCAS(&f, c, v)`: the result is `c`.
    Equals(i64),
    /// `atomicExch(&f, v)`: the result is not `v`.
    Differs(i64),
}

/// The base name of the result of an update of flag cell `index` of array
/// `array`, and which result wins.
pub fn winner(array: usize, index: i64, win: Win) -> String {
    match win {
        Win::Equals(c) => format!("{WINNER_PREFIX}{array}:{index}:eq{c}"),
        Win::Differs(v) => format!("{WINNER_PREFIX}{array}:{index}:ne{v}"),
    }
}

/// For a (fresh or instantiated) flag result's name, its flag cell
/// (`array:index`) and which result wins (`winner:3:0:eq0#1#2` →
/// `("3:0", Equals(0))`).
pub fn winner_flag(name: &str) -> Option<(&str, Win)> {
    let rest = name.strip_prefix(WINNER_PREFIX)?;
    let rest = &rest[..rest.find('#').unwrap_or(rest.len())];
    let (cell, win) = rest.rsplit_once(':')?;
    let win = if let Some(c) = win.strip_prefix("eq") {
        Win::Equals(c.parse().ok()?)
    } else {
        Win::Differs(win.strip_prefix("ne")?.parse().ok()?)
    };
    Some((cell, win))
}

/// The name of the condition that the floating-point value named `value`
/// is NaN (its iteration tag, if any, stays last: one per iteration).
pub fn is_nan(value: &str) -> String {
    format!("isnan:{value}")
}

/// The value thread `t`'s chosen write stores, in a grouped race query.
pub fn written_value(t: u8) -> String {
    format!("written'{t}")
}

/// The selector of thread `t`'s access in a grouped race query.
pub fn selector(t: u8) -> String {
    format!("sel{t}")
}

/// Prefix of the solver's own auxiliary variables (quotients and
/// remainders of divisions by symbolic values): never part of a witness.
const AUXILIARY_PREFIX: &str = "aux!";

/// The quotient and remainder variables of the `n`-th division of a query.
pub fn quotient_and_remainder(n: usize) -> (String, String) {
    (
        format!("{AUXILIARY_PREFIX}quot{n}"),
        format!("{AUXILIARY_PREFIX}rem{n}"),
    )
}

/// Whether a name is one of the solver's auxiliary variables.
pub fn is_solver_auxiliary(name: &str) -> bool {
    name.starts_with(AUXILIARY_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let tag = iteration_tag(&["i@0".into(), "j@0".into()]);
        let name = fresh("x", 0, &tag);
        assert_eq!(name, "x#0⟨i@0,j@0⟩");
        assert!(is_iteration_tagged(&name));
        assert_eq!(split_iteration_tag(&name), Some(("x#0", "i@0,j@0")));
        assert_eq!(iteration_tag(&[]), "");
        assert_eq!(thread_idx(0, 1), "threadIdx.x#1");
        assert_eq!(block_idx(1, 2), "blockIdx.y#2");
        assert_eq!(selector(2), "sel2");
    }

    #[test]
    fn flag_results_name_their_cell_and_winning_result() {
        let cas = fresh(&winner(3, 0, Win::Equals(-1)), 2, "");
        let name = for_thread(&cas, 1);
        assert_eq!(winner_flag(&name), Some(("3:0", Win::Equals(-1))));
        let exch = fresh(&winner(12, 4, Win::Differs(7)), 0, "⟨k@0⟩");
        assert_eq!(winner_flag(&exch), Some(("12:4", Win::Differs(7))));
        assert_eq!(winner_flag("atomicCAS#0"), None);
        assert_eq!(winner_flag(&fresh(&ticket(3, 0), 0, "")), None);
    }
}
