//! Warp matrix operations (`nvcuda::wmma`): `fragment<use, M, N, K, T,
//! layout>` locals, `load_matrix_sync`, `store_matrix_sync`,
//! `fill_fragment`, `mma_sync`.
//!
//! A fragment lives in the registers of the warp's lanes: `fill_fragment`,
//! `mma_sync` and its `x[i]` elements touch no memory. A load reads and a
//! store writes the fragment's whole tile, `rows x cols` elements at
//! `ptr + r * ldm + c` (row-major; column-major swaps the two extents),
//! collectively: which lane touches which element is unspecified, so every
//! element belongs to the warp. The model records the tile's accesses for
//! one representative lane of every warp (`lane == wmma_lane`, one unknown
//! lane shared by the whole launch): two lanes of one warp are never both
//! the representative, so they never race with each other on a tile, while
//! the tiles of two different warps meet (any lane may be the
//! representative of both), and so does another thread's plain access of
//! the tile, even one of the same warp (the representative may be any
//! other lane). The API requires every lane to pass the same arguments and
//! to reach the call together; the representative's arguments stand for
//! the warp's.

use super::*;

/// What a fragment's template arguments say about its tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fragment {
    rows: i64,
    cols: i64,
    /// `row_major` (true) / `col_major` (false) when the type names one
    /// (`matrix_a`, `matrix_b`); an accumulator's comes with each call.
    row_major: Option<bool>,
}

/// `wmma::fragment<...>`: the top-level template arguments of a type's
/// text, when the type is a fragment.
fn fragment_args(ty: &str) -> Option<Vec<String>> {
    let start = ty.find("fragment")?;
    let rest = ty[start + "fragment".len()..].trim_start();
    let rest = rest.strip_prefix('<')?;
    let mut depth = 0usize;
    let mut args = vec![String::new()];
    for ch in rest.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' if depth == 0 => {
                return Some(args.into_iter().map(|a| a.trim().to_string()).collect())
            }
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(ch);
        }
    }
    None
}

/// The layout a name spells: `row_major`, `mem_row_major` (true),
/// `col_major`, `mem_col_major` (false).
fn layout_of(text: &str) -> Option<bool> {
    let last = text.trim().rsplit("::").next()?.trim();
    match last {
        "row_major" | "mem_row_major" => Some(true),
        "col_major" | "mem_col_major" => Some(false),
        _ => None,
    }
}

impl<'a, 't> Lowerer<'a, 't> {
    /// A declaration of a fragment (or an array of fragments) `name` of
    /// the type `ty`: declares it and records its tile's shape; false when
    /// `ty` is no fragment. A fragment whose shape the model cannot read is
    /// recorded without one (its loads and stores are then reported).
    pub(super) fn declare_fragment(&mut self, name: &str, ty: &str) -> bool {
        let Some(args) = fragment_args(ty) else {
            return false;
        };
        let shape = (|| {
            let usage = args.first()?.rsplit("::").next()?.trim().to_string();
            let mut dims = Vec::new();
            for a in args.get(1..4)? {
                dims.push(self.eval_snippet_const(&self.expand_object_macro(a))?);
            }
            let (m, n, k) = (dims[0], dims[1], dims[2]);
            let (rows, cols) = match usage.as_str() {
                "matrix_a" => (m, k),
                "matrix_b" => (k, n),
                "accumulator" => (m, n),
                _ => return None,
            };
            if rows <= 0 || cols <= 0 {
                return None;
            }
            let row_major = args
                .get(5)
                .and_then(|l| layout_of(&self.expand_object_macro(l)));
            Some(Fragment {
                rows,
                cols,
                row_major,
            })
        })();
        self.declare(name, Value::Local);
        let top = self.scopes.len() - 1;
        self.fragments.insert((top, name.to_string()), shape);
        true
    }

    /// An object-like macro's body, followed a few times (`C_LAYOUT` for
    /// `wmma::mem_row_major`); the text itself otherwise.
    fn expand_object_macro(&self, text: &str) -> String {
        let mut t = text.trim().to_string();
        for _ in 0..8 {
            match self.file.macros.get(&t).filter(|m| m.params.is_none()) {
                Some(m) if m.body.trim() != t => t = m.body.trim().to_string(),
                _ => break,
            }
        }
        t
    }

    /// The fragment an argument names (`acc`, `c[i][j]`, `(acc)`): its
    /// declared name.
    fn fragment_name(&self, arg: Node) -> Option<String> {
        let mut n = arg;
        loop {
            match n.kind() {
                "subscript_expression" | "parenthesized_expression" => {
                    n = n.field("argument").or_else(|| n.named_child(0))?;
                }
                "identifier" => {
                    let name = self.text(n);
                    let (scope, Value::Local) = self.lookup(&name)? else {
                        return None;
                    };
                    return self
                        .fragments
                        .contains_key(&(scope, name.clone()))
                        .then_some(name);
                }
                _ => return None,
            }
        }
    }

    /// Whether `node` is `frag.x` / `frag.num_elements` of a fragment:
    /// its value (registers of the thread; the element count, one number
    /// for the launch).
    pub(super) fn fragment_member(&mut self, node: Node) -> Option<Value> {
        let arg = node.field("argument")?;
        self.fragment_name(arg)?;
        let field = self.text(node.field("field")?);
        Some(match field.as_str() {
            "num_elements" => {
                Value::Int(self.fresh_value_in("num_elements", Scope::Grid, (1, 1 << 16)))
            }
            _ => Value::Local,
        })
    }

    /// The `wmma` calls; `None` for any other call (a function of the file
    /// with that name is the file's).
    pub(super) fn wmma_call(&mut self, name: &str, node: Node, args: &[Node]) -> Option<Value> {
        if self.file.functions.contains_key(name) {
            return None;
        }
        let done = Some(Value::Int(Expr::Const(0)));
        match name {
            "fill_fragment" if args.len() == 2 && self.fragment_name(args[0]).is_some() => {
                self.eval(args[1]);
                done
            }
            "mma_sync" | "bmma_sync"
                if args.len() >= 4 && self.fragment_name(args[0]).is_some() =>
            {
                for a in &args[4..] {
                    self.eval(*a);
                }
                done
            }
            "load_matrix_sync" if (3..=4).contains(&args.len()) => {
                let frag = self.fragment_name(args[0])?;
                self.tile_access(
                    &frag,
                    args[1],
                    args[2],
                    args.get(3).copied(),
                    AccessKind::Read,
                    node,
                );
                done
            }
            "store_matrix_sync" if args.len() == 4 => {
                let frag = self.fragment_name(args[1])?;
                self.tile_access(
                    &frag,
                    args[0],
                    args[2],
                    Some(args[3]),
                    AccessKind::Write,
                    node,
                );
                done
            }
            _ => None,
        }
    }

    /// The accesses of one load or store of `frag`'s tile at `ptr` with
    /// leading dimension `ldm` (see the module comment).
    fn tile_access(
        &mut self,
        frag: &str,
        ptr: Node,
        ldm: Node,
        layout: Option<Node>,
        kind: AccessKind,
        node: Node,
    ) {
        let base = self.eval_buffer(ptr);
        let ldm = self.eval(ldm);
        let ldm = self.int_of(ldm, "leading dimension");
        let what = if kind == AccessKind::Read {
            "load_matrix_sync"
        } else {
            "store_matrix_sync"
        };
        let scope = self.lookup(frag).map(|(s, _)| s);
        let shape = scope.and_then(|s| self.fragments.get(&(s, frag.to_string())).cloned());
        let Some(Some(shape)) = shape else {
            self.unsupported(
                node,
                format!(
                    "`{what}` of the fragment `{frag}`, whose type's shape the model cannot read"
                ),
            );
            return;
        };
        let row_major = match layout {
            Some(l) => {
                let text = self.text(l);
                layout_of(&self.expand_object_macro(&text))
            }
            None => shape.row_major,
        };
        let Some(row_major) = row_major else {
            self.unsupported(
                node,
                format!("`{what}` with a memory layout the model cannot read"),
            );
            return;
        };
        let p = match base {
            Value::Ptr(p) => p,
            Value::Opaque(r) => {
                self.unsupported(node, format!("`{what}` through a {r}"));
                return;
            }
            _ => {
                self.unsupported(
                    node,
                    format!("`{what}` through a pointer the model does not track"),
                );
                return;
            }
        };
        if self.dry > 0 {
            return;
        }
        // Row-major: element (r, c) at r * ldm + c; column-major: c * ldm + r.
        let (lines, along) = if row_major {
            (shape.rows, shape.cols)
        } else {
            (shape.cols, shape.rows)
        };
        let line = self.fresh_value_in("tile_line", Scope::Thread, (0, lines - 1));
        let col = self.fresh_value_in("tile_column", Scope::Thread, (0, along - 1));
        let idx = Expr::add(Expr::mul(line, ldm), col);
        let text = self.text(node);
        self.path.push(self.warp_representative());
        self.record_at(&p, idx, kind, node, &text);
        self.path.pop();
    }

    /// `lane == wmma_lane`: this thread is its warp's representative lane.
    fn warp_representative(&self) -> Expr {
        let var = |name: &str, kind| Expr::Var(Var::new(name.to_string(), kind));
        let linear = Expr::add(
            var("threadIdx.x", VarKind::ThreadIdx(0)),
            Expr::mul(
                var("blockDim.x", VarKind::BlockDim(0)),
                Expr::add(
                    var("threadIdx.y", VarKind::ThreadIdx(1)),
                    Expr::mul(
                        var("blockDim.y", VarKind::BlockDim(1)),
                        var("threadIdx.z", VarKind::ThreadIdx(2)),
                    ),
                ),
            ),
        );
        let lane = Expr::bin(BinOp::Rem, linear, Expr::Const(32));
        // With rows of whole warps (`blockDim.x` a multiple of 32) the lane
        // is `threadIdx.x % 32`: the same number, in a form the solver
        // relates to the kernel's own warp arithmetic far more easily.
        let whole_rows = Expr::eq(
            Expr::bin(
                BinOp::Rem,
                var("blockDim.x", VarKind::BlockDim(0)),
                Expr::Const(32),
            ),
            Expr::Const(0),
        );
        let row_lane = Expr::bin(
            BinOp::Rem,
            var("threadIdx.x", VarKind::ThreadIdx(0)),
            Expr::Const(32),
        );
        let representative = Var::new(
            crate::symbols::fresh("wmma_lane", 0, ""),
            VarKind::Unknown {
                scope: Scope::Block,
                lo: 0,
                hi: 31,
            },
        );
        let representative = Expr::Var(representative);
        Expr::or(
            Expr::and(
                whole_rows.clone(),
                Expr::eq(row_lane, representative.clone()),
            ),
            Expr::and(Expr::not(whole_rows), Expr::eq(lane, representative)),
        )
    }
}
