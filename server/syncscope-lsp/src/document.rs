//! An open document: its text, line index and tree-sitter tree, and the
//! application of LSP content changes to both.
//!
//! Pure: no async, no I/O. Positions outside the text are clamped (a line past
//! the end goes to the end of the text, a column past the end of its line to
//! the end of that line, a UTF-16 column inside a surrogate pair to the start
//! of the character), never a panic.

use std::sync::Arc;
use syncscope_core::LineStarts;
use tower_lsp_server::lsp_types::{Position, Range};

/// The position encoding negotiated in `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Columns count UTF-8 bytes.
    Utf8,
    /// Columns count UTF-16 code units (the LSP default).
    #[default]
    Utf16,
}

/// Byte offsets of line starts, for offset ↔ position conversions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    starts: LineStarts,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            starts: LineStarts::new(text),
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.count()
    }

    /// Byte range of `line` without its line terminator (`\n` or `\r\n`).
    fn line_range(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts.start(line).unwrap_or(self.len);
        let mut end = self.starts.start(line + 1).map_or(self.len, |n| n - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end)
    }

    /// The byte offset of an LSP position, clamped into the text.
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.count() {
            return text.len();
        }
        let (start, end) = self.line_range(text, line);
        let line_text = &text[start..end];
        let want = pos.character as usize;
        match enc {
            Encoding::Utf8 => {
                let mut col = want.min(line_text.len());
                while !line_text.is_char_boundary(col) {
                    col -= 1;
                }
                start + col
            }
            Encoding::Utf16 => {
                let mut units = 0;
                for (i, c) in line_text.char_indices() {
                    let next = units + c.len_utf16();
                    if next > want {
                        return start + i;
                    }
                    units = next;
                }
                end
            }
        }
    }

    /// The LSP position of a byte offset (clamped to the text and rounded
    /// down to a character boundary).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start) = self.starts.line_of(offset);
        let col = match enc {
            Encoding::Utf8 => offset - start,
            Encoding::Utf16 => text[start..offset].encode_utf16().count(),
        };
        Position::new(line as u32, col as u32)
    }

    /// The tree-sitter point (row, byte column) of a byte offset.
    pub fn point(&self, offset: usize) -> tree_sitter::Point {
        let offset = offset.min(self.len);
        let (line, start) = self.starts.line_of(offset);
        tree_sitter::Point::new(line, offset - start)
    }
}

/// One open document.
#[derive(Clone, Debug)]
pub struct Document {
    pub version: i32,
    text: Arc<str>,
    index: LineIndex,
    tree: tree_sitter::Tree,
}

/// An immutable view of a document version, handed to the analysis actor.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub version: i32,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
    pub tree: tree_sitter::Tree,
}

impl Document {
    pub fn new(text: String, version: i32) -> Document {
        let tree = syncscope_core::parse(&text, None);
        Document {
            version,
            index: LineIndex::new(&text),
            text: Arc::from(text),
            tree,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn tree(&self) -> &tree_sitter::Tree {
        &self.tree
    }

    pub fn index(&self) -> &LineIndex {
        &self.index
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            version: self.version,
            text: self.text.clone(),
            index: Arc::new(self.index.clone()),
            tree: self.tree.clone(),
        }
    }

    pub fn offset(&self, pos: Position, enc: Encoding) -> usize {
        self.index.offset(&self.text, pos, enc)
    }

    pub fn position(&self, offset: usize, enc: Encoding) -> Position {
        self.index.position(&self.text, offset, enc)
    }

    /// Applies content changes in order (each range refers to the text after
    /// the previous change), edits the tree accordingly and reparses once,
    /// incrementally. A change without range replaces the whole text.
    pub fn apply_changes<'a>(
        &mut self,
        changes: impl IntoIterator<Item = (Option<Range>, &'a str)>,
        version: i32,
        enc: Encoding,
    ) {
        let mut text = self.text.to_string();
        let mut full_replace = false;
        for (range, new_text) in changes {
            match range {
                None => {
                    text = new_text.to_string();
                    full_replace = true;
                }
                Some(range) => {
                    let edit = apply_range_change(&mut text, range, new_text, enc);
                    if !full_replace {
                        self.tree.edit(&edit);
                    }
                }
            }
        }
        self.tree = if full_replace {
            syncscope_core::parse(&text, None)
        } else {
            syncscope_core::parse(&text, Some(&self.tree))
        };
        self.index = LineIndex::new(&text);
        self.text = Arc::from(text);
        self.version = version;
    }
}

/// Replaces `range` (clamped) of `text` with `new_text` and returns the
/// tree-sitter edit that describes the change.
pub fn apply_range_change(
    text: &mut String,
    range: Range,
    new_text: &str,
    enc: Encoding,
) -> tree_sitter::InputEdit {
    let index = LineIndex::new(text);
    let mut start = index.offset(text, range.start, enc);
    let mut end = index.offset(text, range.end, enc);
    if end < start {
        std::mem::swap(&mut start, &mut end);
    }
    let start_position = index.point(start);
    let old_end_position = index.point(end);
    text.replace_range(start..end, new_text);
    // The new end point advances over the inserted text.
    let new_end_position = match new_text.rfind('\n') {
        Some(nl) => tree_sitter::Point::new(
            start_position.row + new_text.matches('\n').count(),
            new_text.len() - nl - 1,
        ),
        None => tree_sitter::Point::new(start_position.row, start_position.column + new_text.len()),
    };
    tree_sitter::InputEdit {
        start_byte: start,
        old_end_byte: end,
        new_end_byte: start + new_text.len(),
        start_position,
        old_end_position,
        new_end_position,
    }
}

/// Applies content changes to a plain text (no tree), e.g. `syncscope.toml`.
pub fn apply_text_changes<'a>(
    text: &mut String,
    changes: impl IntoIterator<Item = (Option<Range>, &'a str)>,
    enc: Encoding,
) {
    for (range, new_text) in changes {
        match range {
            None => *text = new_text.to_string(),
            Some(range) => {
                apply_range_change(text, range, new_text, enc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Option<Range> {
        Some(Range::new(Position::new(l1, c1), Position::new(l2, c2)))
    }

    fn assert_tree_fresh(doc: &Document) {
        let fresh = syncscope_core::parse(doc.text(), None);
        assert_eq!(
            doc.tree().root_node().to_sexp(),
            fresh.root_node().to_sexp(),
            "incremental tree differs from a fresh parse of {:?}",
            doc.text()
        );
        assert_eq!(doc.tree().root_node().end_byte(), doc.text().len());
    }

    const KERNEL: &str =
        "__global__ void k(float *a) {\n    int t = threadIdx.x;\n    a[t] = 1.0f;\n}\n";

    #[test]
    fn offsets_and_positions_utf16_and_utf8() {
        // 'é' is 2 UTF-8 bytes / 1 UTF-16 unit; '😀' is 4 bytes / 2 units.
        let text = "aé😀b\r\nxy\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.offset(text, Position::new(0, 2), Encoding::Utf16), 3);
        assert_eq!(idx.offset(text, Position::new(0, 4), Encoding::Utf16), 7);
        // Inside the surrogate pair: start of the emoji.
        assert_eq!(idx.offset(text, Position::new(0, 3), Encoding::Utf16), 3);
        assert_eq!(idx.offset(text, Position::new(0, 3), Encoding::Utf8), 3);
        // Inside a UTF-8 sequence: rounded down.
        assert_eq!(idx.offset(text, Position::new(0, 2), Encoding::Utf8), 1);
        // Past the end of a CRLF line: before the '\r'.
        assert_eq!(idx.offset(text, Position::new(0, 99), Encoding::Utf16), 8);
        assert_eq!(idx.offset(text, Position::new(1, 1), Encoding::Utf8), 11);
        // Past the last line: end of text.
        assert_eq!(
            idx.offset(text, Position::new(42, 0), Encoding::Utf16),
            text.len()
        );
        assert_eq!(idx.position(text, 7, Encoding::Utf16), Position::new(0, 4));
        assert_eq!(idx.position(text, 7, Encoding::Utf8), Position::new(0, 7));
        assert_eq!(idx.position(text, 11, Encoding::Utf16), Position::new(1, 1));
        assert_eq!(idx.position(text, 4, Encoding::Utf16), Position::new(0, 2));
        assert_eq!(
            idx.position(text, 1000, Encoding::Utf16),
            Position::new(2, 0)
        );
        assert_eq!(idx.point(11), tree_sitter::Point::new(1, 1));
    }

    #[test]
    fn single_line_edit_matches_fresh_parse() {
        let mut doc = Document::new(KERNEL.to_string(), 1);
        // Replace `1.0f` with `2.0f * a[t + 1]`.
        doc.apply_changes(
            [(range(2, 11, 2, 15), "2.0f * a[t + 1]")],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.version, 2);
        assert!(doc.text().contains("a[t] = 2.0f * a[t + 1];"));
        assert_tree_fresh(&doc);
    }

    #[test]
    fn multi_line_edits_in_sequence_match_fresh_parse() {
        let mut doc = Document::new(KERNEL.to_string(), 1);
        doc.apply_changes(
            [
                // Insert two lines after the first statement.
                (
                    range(1, 24, 1, 24),
                    "\n    __shared__ float s[64];\n    s[t] = a[t];",
                ),
                // Then (in the new coordinates) delete across lines 3..4.
                (range(3, 16, 4, 4), " "),
                // And append a kernel at the end.
                (
                    range(4, 1, 4, 1),
                    "\n__global__ void g() { __syncthreads(); }",
                ),
            ],
            7,
            Encoding::Utf16,
        );
        assert_eq!(
            doc.text(),
            "__global__ void k(float *a) {\n    int t = threadIdx.x;\n    __shared__ float s[64];\n    s[t] = a[t]; a[t] = 1.0f;\n}\n__global__ void g() { __syncthreads(); }\n"
        );
        assert_tree_fresh(&doc);
    }

    #[test]
    fn utf16_and_utf8_edits_after_non_ascii() {
        let text = "// héllo 😀 wörld\n__global__ void k(int *a) { a[0] = 1; }\n";
        let mut doc16 = Document::new(text.to_string(), 0);
        // UTF-16: "// héllo 😀 " is 12 units; replace "wörld" (5 units).
        doc16.apply_changes([(range(0, 12, 0, 17), "x")], 1, Encoding::Utf16);
        assert_eq!(doc16.text().lines().next(), Some("// héllo 😀 x"));
        assert_tree_fresh(&doc16);

        let mut doc8 = Document::new(text.to_string(), 0);
        // UTF-8: "// héllo 😀 " is 15 bytes; "wörld" is 6 bytes.
        doc8.apply_changes([(range(0, 15, 0, 21), "x")], 1, Encoding::Utf8);
        assert_eq!(doc8.text(), doc16.text());
        assert_tree_fresh(&doc8);

        // An edit on line 1 after the non-ASCII line (byte columns differ from UTF-16 ones).
        doc8.apply_changes([(range(1, 35, 1, 36), "42")], 2, Encoding::Utf8);
        assert!(doc8.text().contains("a[0] = 42;"));
        assert_tree_fresh(&doc8);
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let mut doc = Document::new(KERNEL.to_string(), 1);
        doc.apply_changes([(range(100, 5, 200, 9), "// tail\n")], 2, Encoding::Utf16);
        assert!(doc.text().ends_with("}\n// tail\n"));
        assert_tree_fresh(&doc);
        // Column past the end of a line, reversed range.
        doc.apply_changes([(range(0, 999, 0, 28), "")], 3, Encoding::Utf16);
        assert!(doc.text().starts_with("__global__ void k(float *a) \n"));
        assert_tree_fresh(&doc);
        // Everything out of range and empty edits.
        doc.apply_changes(
            [(range(u32::MAX, u32::MAX, u32::MAX, u32::MAX), "")],
            4,
            Encoding::Utf8,
        );
        assert_tree_fresh(&doc);
    }

    #[test]
    fn full_replacement_and_mixed_changes() {
        let mut doc = Document::new(KERNEL.to_string(), 1);
        doc.apply_changes(
            [
                (None, "__global__ void z() {}\n"),
                (range(0, 18, 0, 18), "int *p"),
            ],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.text(), "__global__ void z(int *p) {}\n");
        assert_tree_fresh(&doc);
    }

    #[test]
    fn crlf_text_edits() {
        let text = "__global__ void k(int *a) {\r\n  a[0] = 1;\r\n}\r\n";
        let mut doc = Document::new(text.to_string(), 1);
        doc.apply_changes([(range(1, 9, 1, 99), "2;")], 2, Encoding::Utf16);
        assert_eq!(
            doc.text(),
            "__global__ void k(int *a) {\r\n  a[0] = 2;\r\n}\r\n"
        );
        assert_tree_fresh(&doc);
    }
}
