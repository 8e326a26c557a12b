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

/// The bytes of prefixes kept, each weighed as its text and its tree
/// ([`TREE_BYTES_PER_TEXT_BYTE`] times the text): past it, the prefixes used
/// longest ago are dropped. A count would not bound memory: one prefix of
/// large headers weighs a hundred small ones.
const LIMIT_BYTES: usize = 48 << 20;

/// What a tree weighs per byte of its text, about (tree-sitter's nodes of
/// C++ headers, measured on NVIDIA's samples' helpers).
const TREE_BYTES_PER_TEXT_BYTE: usize = 10;

/// A prefix's tree, parsed once: a second unit asking for it while the
/// first parses waits for that parse instead of repeating it.
type Entry = Arc<OnceLock<Tree>>;

/// One kept prefix: its text, its tree, and when it was last asked for (a
/// tick of the table).
struct Slot {
    text: Arc<str>,
    tree: Entry,
    used: u64,
}

impl Slot {
    fn bytes(&self) -> usize {
        self.text.len() * (1 + TREE_BYTES_PER_TEXT_BYTE)
    }
}

#[derive(Default)]
struct Table {
    /// By the hash of the prefix text, with the text (a hash collision is
    /// a miss, not another prefix's tree).
    trees: HashMap<u64, Slot>,
    /// The sum of the slots' weights.
    bytes: usize,
    tick: u64,
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
        t.tick += 1;
        let now = t.tick;
        match t.trees.get_mut(&k) {
            Some(slot) if *slot.text == *prefix => {
                slot.used = now;
                slot.tree.clone()
            }
            _ => {
                let entry = Entry::default();
                t.insert(k, Arc::from(prefix), entry.clone(), LIMIT_BYTES);
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

impl Table {
    /// Keeps `tree` for the prefix `text` (hashed `k`, replacing another
    /// text of that hash), then drops the prefixes used longest ago past
    /// `limit` (the one just kept stays, whatever it weighs). A dropped
    /// tree still parsing, or held by a unit, lives on where it is used.
    fn insert(&mut self, k: u64, text: Arc<str>, tree: Entry, limit: usize) {
        let slot = Slot {
            text,
            tree,
            used: self.tick,
        };
        self.bytes += slot.bytes();
        if let Some(old) = self.trees.insert(k, slot) {
            self.bytes -= old.bytes();
        }
        while self.bytes > limit {
            let Some((&oldest, _)) = self
                .trees
                .iter()
                .filter(|(_, s)| s.used != self.tick)
                .min_by_key(|(_, s)| s.used)
            else {
                break;
            };
            if let Some(old) = self.trees.remove(&oldest) {
                self.bytes -= old.bytes();
            }
        }
    }
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
    fn the_table_drops_the_prefixes_used_longest_ago_past_its_bytes() {
        let mut t = Table::default();
        let text = |c: char| -> Arc<str> { Arc::from(c.to_string().repeat(100)) };
        let weight = 100 * (1 + TREE_BYTES_PER_TEXT_BYTE);
        for (k, c) in [(1, 'a'), (2, 'b')] {
            t.tick += 1;
            t.insert(k, text(c), Entry::default(), 2 * weight);
        }
        // `a` asked for again: `b` is now the one used longest ago.
        t.tick += 1;
        t.trees.get_mut(&1).expect("kept").used = t.tick;
        t.tick += 1;
        t.insert(3, text('c'), Entry::default(), 2 * weight);
        let mut kept: Vec<u64> = t.trees.keys().copied().collect();
        kept.sort();
        assert_eq!(kept, [1, 3]);
        assert_eq!(t.bytes, 2 * weight);
        // A prefix heavier than the limit is kept alone.
        t.tick += 1;
        t.insert(4, Arc::from("d".repeat(1000)), Entry::default(), 2 * weight);
        assert_eq!(t.trees.keys().copied().collect::<Vec<_>>(), [4]);
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
