//! The parse of a translation unit's header prefix, shared by every unit
//! that begins with the same headers.
//!
//! A unit is one text: the headers it includes (already preprocessed as a
//! build reads them) then the file itself (`project/unit.rs`). Every file
//! of a folder that includes `helper_cuda.h` and `helper_math.h` has the
//! same prefix, and the project driver parses units again for the other
//! files' launch sites and host code: without sharing, the same header
//! text is lexed and parsed once per unit, per analysed file.
//!
//! The prefix's tree is kept by the exact text of the prefix (so the
//! includer's macros, the build's `-D`s and an edited header, open in the
//! server or changed on disk, are all part of the key: a different text is
//! a different entry, never a stale one), parsed once per process (the CLI
//! run's files and the server's files share it), and each unit is then
//! parsed incrementally from it: tree-sitter re-reads only what follows the
//! prefix and the prefix's last item, and reuses the rest. The server
//! already analyses edits through incremental parses, so the tree is the
//! one a fresh parse gives; a prefix whose own parse has an error is not
//! reused (error recovery is where an incremental parse may differ).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tree_sitter::{InputEdit, Point, Tree};

/// Prefixes kept before the table is emptied (bounds memory: a prefix tree
/// is about ten times its text).
const LIMIT: usize = 64;

/// A prefix's tree, parsed once: a second unit asking for it while the
/// first parses waits for that parse instead of repeating it.
type Entry = Arc<OnceLock<Tree>>;

#[derive(Default)]
struct Table {
    /// By the hash of the prefix text, with the text (a hash collision is
    /// a miss, not another prefix's tree).
    trees: HashMap<u64, (Arc<str>, Entry)>,
    /// How many times each prefix was parsed from scratch (kept when the
    /// trees are emptied; the tests read it).
    fresh: HashMap<u64, usize>,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(Mutex::default)
}

fn key(prefix: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    prefix.hash(&mut h);
    h.finish()
}

/// The tree of `prefix`, parsed at most once per process while it is kept.
fn prefix_tree(prefix: &str) -> Tree {
    let k = key(prefix);
    let entry = {
        let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
        match t.trees.get(&k) {
            Some((text, entry)) if **text == *prefix => entry.clone(),
            _ => {
                if t.trees.len() >= LIMIT {
                    t.trees.clear();
                }
                let entry = Entry::default();
                t.trees.insert(k, (Arc::from(prefix), entry.clone()));
                entry
            }
        }
    };
    entry
        .get_or_init(|| {
            let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
            *t.fresh.entry(k).or_default() += 1;
            drop(t);
            super::parse(prefix, None)
        })
        .clone()
}

/// How many times `prefix` was parsed from scratch by [`parse_unit`].
#[cfg(test)]
pub(crate) fn fresh_parses(prefix: &str) -> usize {
    let t = table().lock().unwrap_or_else(|e| e.into_inner());
    t.fresh.get(&key(prefix)).copied().unwrap_or(0)
}

/// The position just past the end of `text`.
fn end_point(text: &str) -> Point {
    let row = text.bytes().filter(|&b| b == b'\n').count();
    let column = text.len() - text.rfind('\n').map_or(0, |i| i + 1);
    Point { row, column }
}

/// The tree of a unit whose first `prefix_len` bytes are its headers: the
/// same tree as `parse(text, None)`, with the headers' part parsed once for
/// every unit that starts with them.
pub(crate) fn parse_unit(text: &str, prefix_len: usize) -> Tree {
    if prefix_len == 0 || prefix_len >= text.len() || !text.is_char_boundary(prefix_len) {
        return super::parse(text, None);
    }
    let prefix = &text[..prefix_len];
    let mut old = prefix_tree(prefix);
    if old.root_node().has_error() {
        return super::parse(text, None);
    }
    // The file's text appended after the prefix.
    let at = end_point(prefix);
    let rest = end_point(&text[prefix_len..]);
    let new_end = Point {
        row: at.row + rest.row,
        column: if rest.row == 0 {
            at.column + rest.column
        } else {
            rest.column
        },
    };
    old.edit(&InputEdit {
        start_byte: prefix_len,
        old_end_byte: prefix_len,
        new_end_byte: text.len(),
        start_position: at,
        old_end_position: at,
        new_end_position: new_end,
    });
    super::parse(text, Some(&old))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The incremental parse is the fresh parse, node for node, for units
    /// whose file continues, ends or opens an item across the boundary.
    #[test]
    fn a_unit_parsed_from_its_prefix_is_the_unit_parsed_afresh() {
        let prefix = "#define __SYNCSCOPE_UNIT__ 1\n#define N 64\n\
            __device__ int twice_prefix_trees(int x) { return 2 * x; }\n\
            struct Pair_prefix_trees { int a; int b; };\n";
        for file in [
            "__global__ void k(int *a) { a[threadIdx.x] = twice_prefix_trees(N); }\n",
            "",
            "int after;",
            "/* a comment */ Pair_prefix_trees p; void host() { k<<<1, N>>>(0); }\n",
            "__global__ void broken(int *a) { a[ = ; }\n",
        ] {
            let text = format!("{prefix}{file}");
            let shared = parse_unit(&text, prefix.len());
            let fresh = super::super::parse(&text, None);
            assert_eq!(
                shared.root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "{file}"
            );
        }
        assert_eq!(fresh_parses(prefix), 1, "the prefix is parsed once");
    }

    #[test]
    fn positions_after_a_multi_line_prefix_are_the_fresh_parse_positions() {
        let prefix = "#define A_prefix_trees 1\nint x_prefix_trees;\n";
        let text = format!("{prefix}int y;\n\n  int z; int w;");
        let shared = parse_unit(&text, prefix.len());
        let fresh = super::super::parse(&text, None);
        let spans = |t: &Tree| {
            let mut c = t.root_node().walk();
            t.root_node()
                .named_children(&mut c)
                .map(|n| (n.start_position(), n.end_position(), n.byte_range()))
                .collect::<Vec<_>>()
        };
        assert_eq!(spans(&shared), spans(&fresh));
    }
}
