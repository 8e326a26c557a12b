//! A race's condition on the contents of the kernel's input arrays: a
//! scatter `out[scan[i]] = v` or `start[hash[i]] = i` races only when two
//! reads of `scan` return one value, which a scan's output, a permutation
//! or sorted keys never do. Here: which stated orders are worth trying for
//! a race (`__distinct(a)`, `__sorted(a)` of an input array whose reads
//! feed the racing accesses), and their texts. The driver (`fixes`) states
//! one only once the kernel, with it assumed, verified free of the race.
//!
//! A race whose colliding values the kernel computes (an atomic's ticket,
//! arithmetic on thread indices, a value it wrote itself) depends on no
//! read of an input array and gets no such condition: it stays the plain
//! race it is.

use crate::model::*;

/// Rounds of following a read's own index and guard to the reads they
/// depend on (`out[scan[perm[i]]]`).
const MAX_DEPTH: usize = 4;
/// Arrays tried per race at most (each order of each is one verification
/// of the kernel).
const MAX_ARRAYS: usize = 2;

/// The stated orders to try for the race between the accesses `ids` of
/// `kernel`, most telling first: for each global array the kernel only
/// reads, whose read (of one cell: what `verify::input_orders` links)
/// their indices or guards depend on, `__sorted` then `__distinct`,
/// leaving out what the kernel already states.
pub(crate) fn candidates(kernel: &Kernel, ids: &[usize]) -> Vec<InputOrder> {
    let accesses = kernel.accesses();
    let access = |id: usize| accesses.iter().find(|a| a.id == id).copied();
    let written: Vec<ArrayId> = accesses
        .iter()
        .filter(|a| a.kind.writes())
        .map(|a| a.array)
        .collect();
    let mut arrays: Vec<ArrayId> = Vec::new();
    let mut frontier: Vec<Expr> = ids
        .iter()
        .filter_map(|id| access(*id))
        .flat_map(|a| [a.index.clone(), a.guard.clone()])
        .collect();
    let mut seen: Vec<usize> = Vec::new();
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for e in &frontier {
            e.for_each_var(&mut |v| {
                let Some((_, id)) = kernel.read_values.iter().find(|(r, _)| r == v) else {
                    return;
                };
                if seen.contains(id) {
                    return;
                }
                seen.push(*id);
                let Some(read) = access(*id) else {
                    return;
                };
                let usable = kernel.arrays[read.array].space == MemorySpace::Global
                    && !written.contains(&read.array)
                    && crate::verify::input_orders::one_cell(v, read, &kernel.arrays[read.array])
                    && is_identifier(&kernel.arrays[read.array].name);
                if usable && !arrays.contains(&read.array) {
                    arrays.push(read.array);
                }
                next.push(read.index.clone());
                next.push(read.guard.clone());
            });
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    arrays.truncate(MAX_ARRAYS);
    let mut out = Vec::new();
    for array in arrays {
        // Sorted first: a kernel that compares neighbours
        // (`key[i] != key[i - 1]`) is often race-free under either, and
        // sorted keys are what it is written for (their runs repeat
        // values, so `__distinct` would be a claim the data breaks); a
        // plain scatter needs `__distinct`, which comes next.
        for kind in [OrderKind::Sorted, OrderKind::Distinct] {
            let order = InputOrder {
                array,
                kind,
                extent: None,
            };
            if !kernel.input_orders.contains(&order) {
                out.push(order);
            }
        }
    }
    out
}

/// The annotation's condition: `__distinct(scan)`.
pub(crate) fn assumption_text(kernel: &Kernel, order: &InputOrder) -> String {
    let source = match order.kind {
        OrderKind::Scan { source, .. } => format!(", {}", kernel.arrays[source].name),
        _ => String::new(),
    };
    format!(
        "{}({}{source})",
        order.kind.predicate(),
        kernel.arrays[order.array].name
    )
}

/// What the array must hold for the kernel to be free of the race, in
/// words (after "races unless").
pub(crate) fn property_text(kernel: &Kernel, order: &InputOrder) -> String {
    let name = &kernel.arrays[order.array].name;
    match order.kind {
        OrderKind::Distinct => {
            format!("`{name}` holds distinct values at the distinct indices the kernel reads")
        }
        OrderKind::Sorted => {
            format!("`{name}` is sorted (non-decreasing) over the indices the kernel reads")
        }
        OrderKind::Scan { source, inclusive } => format!(
            "`{name}` is the {} prefix sum of the non-negative `{}`",
            if inclusive { "inclusive" } else { "exclusive" },
            kernel.arrays[source].name
        ),
    }
}

/// Whether C code at the kernel's start can name the array (a parameter,
/// not a member or an expression).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
