//! The kernel model: what the verifier needs of a kernel and nothing more.
//!
//! A kernel is a tree of memory accesses and barriers, structured by the
//! conditionals and loops that contain barriers. Every access and barrier
//! carries its complete *guard* (the path condition under which a thread
//! executes it, including enclosing conditions, loop guards and early
//! returns), so the verifier never re-derives control flow. Values are
//! symbolic integer expressions over thread and block indices, launch sizes,
//! parameters, loop iteration counters and unknowns (values read from
//! memory, havocked variables): unknowns are never guessed.

use crate::report::Span;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// How widely a value is shared between threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The same for every thread of the grid (parameters, launch sizes).
    Grid,
    /// The same for every thread of a block (depends on `blockIdx`).
    Block,
    /// May differ between any two threads.
    Thread,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarKind {
    ThreadIdx(u8),
    BlockIdx(u8),
    BlockDim(u8),
    GridDim(u8),
    /// A kernel parameter or template parameter: grid-uniform, in `lo..=hi`.
    Param {
        lo: i64,
        hi: i64,
    },
    /// A loop's iteration counter (0, 1, 2, ...). `pow2` loops run < 64 times.
    Counter {
        pow2: bool,
    },
    /// An unknown value (read from memory, havocked by a loop, opaque call).
    Unknown {
        scope: Scope,
        lo: i64,
        hi: i64,
    },
    /// A value shared by the two threads of a query (synchronized loop
    /// iteration, selector): introduced by the verifier, never by the front end.
    Shared,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    pub name: Arc<str>,
    pub kind: VarKind,
}

impl Var {
    pub fn new(name: impl Into<Arc<str>>, kind: VarKind) -> Var {
        Var {
            name: name.into(),
            kind,
        }
    }

    /// For an unknown that stands for code the front end cannot see (the
    /// result of a function without a body, a name declared nowhere in the
    /// file), the name of that function or name. Unlike a value read from
    /// memory, which is an input of the kernel and may be anything, such a
    /// value is fixed by code nobody checked: a collision that needs it to
    /// take a particular value is no witness of a race.
    pub fn unseen_origin(&self) -> Option<&str> {
        let rest = self.name.strip_prefix(UNSEEN_PREFIX)?;
        let end = rest
            .find(|c| c == '#' || crate::symbols::is_tag_bracket(c))
            .unwrap_or(rest.len());
        Some(&rest[..end])
    }

    /// The scope of this variable's value.
    pub fn scope(&self) -> Scope {
        match self.kind {
            VarKind::ThreadIdx(_) => Scope::Thread,
            VarKind::BlockIdx(_) => Scope::Block,
            VarKind::BlockDim(_) | VarKind::GridDim(_) | VarKind::Param { .. } => Scope::Grid,
            // A counter is per thread unless an enclosing synchronized loop
            // binds it; the verifier decides that per interval.
            VarKind::Counter { .. } => Scope::Thread,
            VarKind::Unknown { scope, .. } => scope,
            VarKind::Shared => Scope::Grid,
        }
    }
}

pub use crate::symbols::{DIMS, OTHER_THREAD, UNSEEN_PREFIX};

impl Expr {
    /// This assumption fixes the block's dimension `d` to 1
    /// (`blockDim.y == 1`, a fact of the launch site).
    pub fn pins_block_dim_to_one(&self, d: u8) -> bool {
        let is_dim = |e: &Expr| matches!(e, Expr::Var(v) if v.kind == VarKind::BlockDim(d));
        match self {
            Expr::Bin(BinOp::Eq, l, r) => {
                (is_dim(l) && r.as_const() == Some(1)) || (is_dim(r) && l.as_const() == Some(1))
            }
            _ => false,
        }
    }

    /// This condition has `threadIdx.d == 0` as a conjunct (so at most one
    /// thread per block along dimension `d` satisfies it).
    pub fn requires_thread_zero(&self, d: u8) -> bool {
        match self {
            Expr::Bin(BinOp::And, a, b) => a.requires_thread_zero(d) || b.requires_thread_zero(d),
            Expr::Bin(BinOp::Eq, a, b) => {
                let is_idx =
                    |x: &Expr| matches!(x, Expr::Var(v) if v.kind == VarKind::ThreadIdx(d));
                (is_idx(a) && b.as_const() == Some(0)) || (is_idx(b) && a.as_const() == Some(0))
            }
            _ => false,
        }
    }

    /// The atomics after a `__threadfence()` (their target's text) this
    /// expression's code runs after.
    pub fn fences_after(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.for_each_var(&mut |v| {
            if let Some(t) = crate::symbols::fenced_target(&v.name) {
                out.insert(t.to_string());
            }
        });
        out
    }

    /// The locks (their text) whose holding this expression depends on.
    pub fn locks_held(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.for_each_var(&mut |v| {
            if let Some(l) = crate::symbols::held_lock(&v.name) {
                out.insert(l.to_string());
            }
        });
        out
    }

    /// The functions and names the front end cannot see that this
    /// expression depends on, sorted.
    pub fn unseen_origins(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.for_each_var(&mut |v| {
            if let Some(o) = v.unseen_origin() {
                out.insert(o.to_string());
            }
        });
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    Neg,
    /// Logical not (`!`).
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// C division (truncates toward zero).
    Div,
    /// C remainder (sign of the dividend).
    Rem,
    Shl,
    /// Arithmetic shift right.
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Min,
    Max,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
    pub fn is_boolean(self) -> bool {
        self.is_comparison() || matches!(self, BinOp::And | BinOp::Or)
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Min => "min",
            BinOp::Max => "max",
        }
    }
}

/// A symbolic integer expression with C semantics (booleans are 0/1).
/// Its `Hash` is its `digest`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Expr {
    Const(i64),
    Var(Var),
    Un(UnOp, Arc<Expr>),
    Bin(BinOp, Arc<Expr>, Arc<Expr>),
    Ite(Arc<Expr>, Arc<Expr>, Arc<Expr>),
    /// `2^e` for a counter-like `e` in 0..64 (closed forms of `*= 2` loops).
    Pow2(Arc<Expr>),
}

thread_local! {
    /// Digests of the expressions hashed while `with_digest_memo` runs, by
    /// address (`None`: not running).
    static DIGESTS: std::cell::RefCell<Option<std::collections::HashMap<usize, u64>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` remembering the digest of every expression it hashes by its
/// address, so an expression shared by many others (`Arc`: the enclosing
/// conditions of every guard in a loop nest) is hashed once: hashing a
/// model takes time linear in its distinct nodes, not in its size as a
/// tree. `f` must not drop nor change an expression it hashes (the
/// addresses must stay those of the same expressions); the digests are the
/// same with and without the memo.
pub fn with_digest_memo<R>(f: impl FnOnce() -> R) -> R {
    /// Forgets the memo when `f` returns or unwinds (its addresses mean
    /// nothing afterwards).
    struct Forget;
    impl Drop for Forget {
        fn drop(&mut self) {
            DIGESTS.with(|d| *d.borrow_mut() = None);
        }
    }
    DIGESTS.with(|d| *d.borrow_mut() = Some(Default::default()));
    let _forget = Forget;
    f()
}

impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.digest());
    }
}

#[allow(clippy::should_implement_trait)]
impl Expr {
    /// A hash of the expression's structure (equal expressions have equal
    /// digests), stable across runs of the same build.
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let compound = !matches!(self, Expr::Const(_) | Expr::Var(_));
        let key = self as *const Expr as usize;
        if compound {
            let known = DIGESTS.with(|d| d.borrow().as_ref().and_then(|m| m.get(&key).copied()));
            if let Some(d) = known {
                return d;
            }
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match self {
            Expr::Const(c) => (0u8, c).hash(&mut h),
            Expr::Var(v) => (1u8, v).hash(&mut h),
            Expr::Un(op, a) => (2u8, op, a.digest()).hash(&mut h),
            Expr::Bin(op, a, b) => (3u8, op, a.digest(), b.digest()).hash(&mut h),
            Expr::Ite(c, a, b) => (4u8, c.digest(), a.digest(), b.digest()).hash(&mut h),
            Expr::Pow2(a) => (5u8, a.digest()).hash(&mut h),
        }
        let d = h.finish();
        if compound {
            DIGESTS.with(|m| {
                if let Some(m) = m.borrow_mut().as_mut() {
                    m.insert(key, d);
                }
            });
        }
        d
    }

    pub fn tru() -> Expr {
        Expr::Const(1)
    }
    pub fn fals() -> Expr {
        Expr::Const(0)
    }
    pub fn var(v: Var) -> Expr {
        Expr::Var(v)
    }
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Expr::Const(c) => Some(*c),
            _ => None,
        }
    }
    pub fn is_true(&self) -> bool {
        matches!(self, Expr::Const(c) if *c != 0)
    }
    pub fn is_false(&self) -> bool {
        matches!(self, Expr::Const(0))
    }

    /// Builds a binary expression, folding constants where that is exact.
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        use BinOp::*;
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            if let Some(v) = fold(op, x, y) {
                return Expr::Const(v);
            }
        }
        match (op, a.as_const(), b.as_const()) {
            (Add, Some(0), _) => return b,
            (Add | Sub | Shl | Shr | BitOr | BitXor, _, Some(0)) => return a,
            (Mul, Some(1), _) => return b,
            (Mul | Div, _, Some(1)) => return a,
            (Mul, Some(0), _) | (Mul, _, Some(0)) => return Expr::Const(0),
            (And, Some(x), _) => return if x == 0 { Expr::fals() } else { b.truthy() },
            (And, _, Some(y)) => return if y == 0 { Expr::fals() } else { a.truthy() },
            (Or, Some(x), _) => return if x != 0 { Expr::tru() } else { b.truthy() },
            (Or, _, Some(y)) => return if y != 0 { Expr::tru() } else { a.truthy() },
            _ => {}
        }
        if op.is_comparison() && a == b {
            return Expr::Const(matches!(op, Le | Ge | Eq) as i64);
        }
        if matches!(op, Sub) && a == b {
            return Expr::Const(0);
        }
        // (x + c1) + c2 → x + (c1 + c2): keeps closed forms of loops small.
        if let (Add | Sub, Expr::Bin(Add, x, c1), Some(c2)) = (op, &a, b.as_const()) {
            if let Some(c1) = c1.as_const() {
                let c = if op == Add {
                    c1.checked_add(c2)
                } else {
                    c1.checked_sub(c2)
                };
                if let Some(c) = c {
                    return Expr::bin(Add, (**x).clone(), Expr::Const(c));
                }
            }
        }
        if let (Sub, Some(c)) = (op, b.as_const()) {
            if let Some(n) = c.checked_neg() {
                return Expr::bin(Add, a, Expr::Const(n));
            }
        }
        Expr::Bin(op, Arc::new(a), Arc::new(b))
    }

    pub fn un(op: UnOp, a: Expr) -> Expr {
        match (op, &a) {
            (UnOp::Neg, Expr::Const(c)) if c.checked_neg().is_some() => Expr::Const(-c),
            (UnOp::Not, Expr::Const(c)) => Expr::Const((*c == 0) as i64),
            (UnOp::BitNot, Expr::Const(c)) => Expr::Const(!c),
            (UnOp::Not, Expr::Un(UnOp::Not, inner)) if inner.is_boolean() => (**inner).clone(),
            _ => Expr::Un(op, Arc::new(a)),
        }
    }

    pub fn ite(c: Expr, a: Expr, b: Expr) -> Expr {
        if c.is_true() {
            return a;
        }
        if c.is_false() {
            return b;
        }
        if a == b {
            return a;
        }
        Expr::Ite(Arc::new(c), Arc::new(a), Arc::new(b))
    }

    pub fn and(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::And, a, b)
    }
    pub fn or(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Or, a, b)
    }
    pub fn not(a: Expr) -> Expr {
        Expr::un(UnOp::Not, a)
    }
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Eq, a, b)
    }
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Add, a, b)
    }
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Mul, a, b)
    }
    pub fn all(items: impl IntoIterator<Item = Expr>) -> Expr {
        items.into_iter().fold(Expr::tru(), Expr::and)
    }

    /// True if this expression is 0/1-valued by construction.
    pub fn is_boolean(&self) -> bool {
        match self {
            Expr::Bin(op, ..) => op.is_boolean(),
            Expr::Un(UnOp::Not, _) => true,
            Expr::Const(c) => *c == 0 || *c == 1,
            _ => false,
        }
    }

    /// `e != 0` unless `e` is already boolean.
    pub fn truthy(self) -> Expr {
        if self.is_boolean() {
            self
        } else {
            Expr::bin(BinOp::Ne, self, Expr::Const(0))
        }
    }

    /// Whether `pred` holds for some node (pre-order, stops at the first).
    pub fn any_node(&self, pred: &mut impl FnMut(&Expr) -> bool) -> bool {
        // Iterative: expressions built by long straight-line code can be deep.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if pred(e) {
                return true;
            }
            match e {
                Expr::Const(_) | Expr::Var(_) => {}
                Expr::Un(_, a) | Expr::Pow2(a) => stack.push(a),
                Expr::Bin(_, a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                Expr::Ite(c, a, b) => {
                    stack.push(c);
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
        false
    }

    /// [`Expr::any_node`] visiting a subexpression shared by several
    /// parents (`Arc`: the merged values of a function with many early
    /// `return`s, each arm built on the one before) once, so the walk is
    /// linear in the distinct nodes, not in the size of the tree, which
    /// can be exponential in them. Only for predicates whose answer does
    /// not depend on how often a node is seen (a search, a maximum, a set).
    pub fn any_distinct_node(&self, pred: &mut impl FnMut(&Expr) -> bool) -> bool {
        let mut seen: std::collections::HashSet<*const Expr> = std::collections::HashSet::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if pred(e) {
                return true;
            }
            // A child with one owner is reached through its one parent only,
            // which is itself visited once: no need to remember it.
            let mut push =
                |a: &'_ Arc<Expr>| Arc::strong_count(a) == 1 || seen.insert(Arc::as_ptr(a));
            match e {
                Expr::Const(_) | Expr::Var(_) => {}
                Expr::Un(_, a) | Expr::Pow2(a) => {
                    if push(a) {
                        stack.push(a);
                    }
                }
                Expr::Bin(_, a, b) => {
                    for x in [a, b] {
                        if push(x) {
                            stack.push(x);
                        }
                    }
                }
                Expr::Ite(c, a, b) => {
                    for x in [c, a, b] {
                        if push(x) {
                            stack.push(x);
                        }
                    }
                }
            }
        }
        false
    }

    /// Whether the expression leaves linear arithmetic: a product, quotient
    /// or remainder of two non-constants, a shift by a non-constant, `2^e`.
    pub fn is_nonlinear(&self) -> bool {
        self.any_node(&mut Expr::is_nonlinear_op)
    }

    /// Whether this node itself (not its operands) is a nonlinear
    /// operation, as [`Expr::is_nonlinear`] counts one.
    pub fn is_nonlinear_op(&self) -> bool {
        match self {
            Expr::Pow2(a) => a.as_const().is_none(),
            Expr::Bin(BinOp::Mul | BinOp::Div | BinOp::Rem, a, b) => {
                a.as_const().is_none() && b.as_const().is_none()
            }
            Expr::Bin(BinOp::Shl | BinOp::Shr, _, b) => b.as_const().is_none(),
            _ => false,
        }
    }

    /// Visits every variable.
    pub fn for_each_var(&self, f: &mut impl FnMut(&Var)) {
        self.any_node(&mut |e| {
            if let Expr::Var(v) = e {
                f(v);
            }
            false
        });
    }

    pub fn vars(&self) -> BTreeSet<Var> {
        let mut out = BTreeSet::new();
        self.any_distinct_node(&mut |e| {
            if let Expr::Var(v) = e {
                out.insert(v.clone());
            }
            false
        });
        out
    }

    /// The widest scope of any variable (Grid for constants).
    pub fn scope(&self) -> Scope {
        let mut s = Scope::Grid;
        self.any_distinct_node(&mut |e| {
            if let Expr::Var(v) = e {
                s = s.max(v.scope());
            }
            // Nothing is wider than a thread's.
            s == Scope::Thread
        });
        s
    }

    pub fn mentions(&self, pred: &mut impl FnMut(&Var) -> bool) -> bool {
        self.any_node(&mut |e| matches!(e, Expr::Var(v) if pred(v)))
    }

    /// Replaces variables by `f`'s answer (None keeps the variable).
    pub fn subst(&self, f: &mut impl FnMut(&Var) -> Option<Expr>) -> Expr {
        match self {
            Expr::Const(_) => self.clone(),
            Expr::Var(v) => f(v).unwrap_or_else(|| self.clone()),
            Expr::Un(op, a) => Expr::un(*op, a.subst(f)),
            Expr::Pow2(a) => {
                let a2 = a.subst(f);
                match a2.as_const() {
                    Some(c) if (0..62).contains(&c) => Expr::Const(1i64 << c),
                    _ => Expr::Pow2(Arc::new(a2)),
                }
            }
            Expr::Bin(op, a, b) => Expr::bin(*op, a.subst(f), b.subst(f)),
            Expr::Ite(c, a, b) => Expr::ite(c.subst(f), a.subst(f), b.subst(f)),
        }
    }

    /// Number of nodes of the tree (shared subtrees count every time).
    pub fn size(&self) -> usize {
        self.size_up_to(usize::MAX)
    }

    /// `size()`, but stops counting past `limit` (cheap on huge shared DAGs).
    pub fn size_up_to(&self, limit: usize) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            n += 1;
            if n > limit {
                return n;
            }
            match e {
                Expr::Const(_) | Expr::Var(_) => {}
                Expr::Un(_, a) | Expr::Pow2(a) => stack.push(a),
                Expr::Bin(_, a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                Expr::Ite(c, a, b) => {
                    stack.push(c);
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
        n
    }
}

/// Folds a constant operation; `None` where C leaves it undefined or it
/// overflows 64 bits (the expression then stays symbolic).
pub fn fold(op: BinOp, x: i64, y: i64) -> Option<i64> {
    use BinOp::*;
    Some(match op {
        Add => x.checked_add(y)?,
        Sub => x.checked_sub(y)?,
        Mul => x.checked_mul(y)?,
        Div => x.checked_div(y)?,
        Rem => x.checked_rem(y)?,
        Shl => {
            if !(0..63).contains(&y) {
                return None;
            }
            x.checked_mul(1i64 << y)?
        }
        Shr => {
            if !(0..64).contains(&y) {
                return None;
            }
            x >> y
        }
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Lt => (x < y) as i64,
        Le => (x <= y) as i64,
        Gt => (x > y) as i64,
        Ge => (x >= y) as i64,
        Eq => (x == y) as i64,
        Ne => (x != y) as i64,
        And => (x != 0 && y != 0) as i64,
        Or => (x != 0 || y != 0) as i64,
        Min => x.min(y),
        Max => x.max(y),
    })
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Const(c) => write!(f, "{c}"),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Un(UnOp::Neg, a) => write!(f, "-({a})"),
            Expr::Un(UnOp::Not, a) => write!(f, "!({a})"),
            Expr::Un(UnOp::BitNot, a) => write!(f, "~({a})"),
            Expr::Pow2(a) => write!(f, "2^({a})"),
            Expr::Bin(op @ (BinOp::Min | BinOp::Max), a, b) => {
                write!(f, "{}({a}, {b})", op.symbol())
            }
            Expr::Bin(op, a, b) => {
                let paren = |e: &Expr| matches!(e, Expr::Bin(..) | Expr::Ite(..));
                if paren(a) {
                    write!(f, "({a})")?;
                } else {
                    write!(f, "{a}")?;
                }
                write!(f, " {} ", op.symbol())?;
                if paren(b) {
                    write!(f, "({b})")
                } else {
                    write!(f, "{b}")
                }
            }
            Expr::Ite(c, a, b) => write!(f, "({c} ? {a} : {b})"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemorySpace {
    Shared,
    Global,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Array {
    pub name: String,
    pub space: MemorySpace,
    /// Declared dimensions (None: unknown extent, e.g. `extern __shared__ s[]`).
    pub dims: Vec<Option<i64>>,
    /// Accessed through pointers of more than one element size
    /// (`reinterpret_cast<float4*>`, `(char*)p + off`, `extern __shared__`
    /// arrays of different types): indices and widths count bytes, not
    /// elements.
    pub byte_addressed: bool,
}

pub type ArrayId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

impl AccessKind {
    pub fn writes(self) -> bool {
        matches!(self, AccessKind::Write | AccessKind::Atomic)
    }
    pub fn verb(self) -> &'static str {
        match self {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
            AccessKind::Atomic => "atomically updates",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub id: usize,
    pub array: ArrayId,
    pub kind: AccessKind,
    /// The element offset (multi-dimensional indices flattened row-major),
    /// or the byte offset in a byte-addressed array.
    pub index: Expr,
    /// How many consecutive cells from `index` the access touches (1, or
    /// the access's size in bytes in a byte-addressed array): two accesses
    /// collide when their ranges intersect.
    pub width: i64,
    pub guard: Expr,
    pub span: Span,
    /// Source text of the access, for messages (`s[t + 1]`).
    pub text: String,
    /// Ids of the enclosing loops, outermost first.
    pub loops: Vec<usize>,
    /// For a plain write, the value written when the model has it (an
    /// integer expression of the thread's values); `None` when unknown. Two
    /// writes collide benignly only when both values are provably equal.
    pub value: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BarrierKind {
    /// `__syncwarp()`, tile/coalesced group sync: orders one warp.
    Warp,
    /// `__syncthreads()` and friends, `block.sync()`: orders one block.
    Block,
    /// `grid.sync()`: orders the whole grid.
    Grid,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Barrier {
    pub id: usize,
    pub kind: BarrierKind,
    pub guard: Expr,
    pub span: Span,
    /// The span of the whole statement (for removal fixes).
    pub stmt_span: Span,
    /// `__syncthreads_count/and/or`: its value is used, never redundant.
    pub has_value: bool,
    /// `__syncwarp(mask)` with a mask other than all lanes: not checked for divergence.
    pub partial_mask: bool,
    /// Enclosing conditions (innermost last) with their spans, for messages.
    /// Shared (`Arc`) between the barriers of a nest, so hashing the model
    /// hashes each condition once (`with_digest_memo`), not once per barrier
    /// inside it.
    pub conditions: Vec<(Span, Arc<Expr>)>,
    pub loops: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loop {
    pub id: usize,
    /// The iteration counter variable (`VarKind::Counter`).
    pub counter: Var,
    /// The loop's own condition at iteration `counter` (enclosing guards not included).
    pub guard: Expr,
    /// The first `cond_len` statements of the body come from evaluating the
    /// condition: they run on the final, failing check too.
    pub cond_len: usize,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// Named loop variables as closed forms of the counter (for witnesses).
    pub display: Vec<(String, Expr)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    Access(Access),
    Barrier(Barrier),
    /// Structure of a conditional (guards are on the leaves).
    If(Vec<Stmt>, Vec<Stmt>),
    Loop(Loop),
    /// Where a `break` leaves the innermost enclosing loop, for the threads
    /// for which this guard holds (the statements after it carry its
    /// negation in their guards). The code after the loop follows what such
    /// a thread ran of the iteration since its last barrier, not the last
    /// iteration's tail.
    LoopExit(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unsupported {
    pub span: Span,
    pub what: String,
}

/// A local a loop accumulates (`sum += a[k] * b[k]`), recorded with
/// `Options::track_values`: after the loop, `exit` holds `init` updated
/// once per iteration that ran (iteration `counter` runs while the loop's
/// own guard held at every iteration up to it) by `next`, in which
/// `carried` stands for the value at the start of that iteration. Only for
/// loops that no `break`, `continue`, `return` or `goto` leaves early.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fold {
    pub exit: Var,
    pub init: Expr,
    pub carried: Var,
    pub next: Expr,
    /// `Loop::id` of the loop.
    pub loop_id: usize,
}

/// Where an assumption the verdicts rest on came from: the report names it,
/// so that a fact read from the host code is never taken for an annotation
/// the user wrote.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AssumptionOrigin {
    /// An annotation in the code (`__requires`, `__assume`, `assert`), at
    /// the assumption's span.
    Annotation,
    /// A fact of the kernel's launch in the host code (`host.cu:42`).
    Launch(String),
}

/// One assumption of a kernel, as written, with its origin.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StatedAssumption {
    pub span: Span,
    /// The annotation as written (`__requires(n > 0)`) or the launch fact
    /// (`blockDim.y == 1`).
    pub text: String,
    pub origin: AssumptionOrigin,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    pub name: String,
    pub span: Span,
    /// The whole definition (used to map edits to kernels).
    pub def_span: Span,
    pub arrays: Vec<Array>,
    pub body: Vec<Stmt>,
    /// Facts every thread may assume (`__requires`, `assert`, launch bounds).
    pub assumptions: Vec<Expr>,
    pub unsupported: Vec<Unsupported>,
    /// Which dimensions of threadIdx/blockDim and blockIdx/gridDim the kernel uses.
    pub block_dims_used: [bool; 3],
    pub grid_dims_used: [bool; 3],
    /// `__launch_bounds__(n)`: at most n threads per block.
    pub max_threads: Option<i64>,
    /// The guard at the start and at the end of each statement of the
    /// kernel's own body (byte offset, path condition there): where a
    /// barrier inserted at that offset would run. Quick-fixes insert one
    /// into the model there instead of editing and re-parsing the text.
    pub stmt_guards: Vec<(u32, Expr)>,
    /// Claims the code makes that the verifier must prove (`__assert`,
    /// loop invariants, preconditions of inlined device functions).
    pub assertions: Vec<Assertion>,
    /// The assumptions as written (`__requires(n > 0)` at line 3, a fact
    /// of the host launch), each with where it came from: every verdict
    /// holds only under them, and the report says so.
    pub assumption_texts: Vec<StatedAssumption>,
    /// Specifications the verifier neither assumes nor checks, with why
    /// (access invariants, postconditions): no verdict rests on them.
    pub unused_specs: Vec<(Span, String)>,
    /// How many threads a warp-level barrier orders: 32 for `__syncwarp`,
    /// N when every warp-level barrier is `sync()` of a `tiled_partition<N>`.
    pub warp_width: i64,
    /// Counters (`symbols::ticket`'s `array:index`) that the kernel only
    /// changes by atomic adds of non-zero constants of one sign: the values
    /// those adds return (tickets) differ between any two threads.
    pub ticket_counters: Vec<String>,
    /// One-shot flags (`array:index`, `symbols::winner`): cells the kernel
    /// only changes to one constant by `atomicCAS`/`atomicExch`; at most
    /// one update (per block for a `__shared__` flag) sees a winning result.
    pub flag_cells: Vec<String>,
    /// Last-block patterns: `__threadfence()` then one atomic increment of
    /// a counter, outside loops, whose result is the block's ticket.
    pub last_blocks: Vec<LastBlock>,
    /// Every atomic read-modify-write the kernel makes, with its operands
    /// and the value it returns: what the schedule checks (assertions over
    /// atomic results, `--deterministic`) reason about.
    pub atomic_ops: Vec<AtomicOp>,
    /// Whether a loop follows an atomic whose result the code keeps: the
    /// loop model may summarise a value computed from that result (a
    /// variable updated in the loop becomes an unknown per iteration), so
    /// the model no longer shows every place the result flows to.
    pub atomic_results_summarised: bool,
    /// The unknown each memory read returns, with the read's access id:
    /// what the schedule search gives a read of an input array.
    pub read_values: Vec<(Var, usize)>,
    /// Values loops accumulate (only with `Options::track_values`): see
    /// [`Fold`].
    pub folds: Vec<Fold>,
    /// Facts about the contents of input arrays the code states
    /// (`__requires(__distinct(scan))`): the race queries assume them of
    /// the values the two threads read (`verify::input_orders`).
    pub input_orders: Vec<InputOrder>,
    /// Values the model keeps as unknowns that are nonetheless
    /// deterministic functions of operands it has (a floating-point
    /// operation, a conversion, a texture fetch): the same-value check of
    /// two writes may conclude that equal operands gave equal results
    /// (`verify::congruence`), never any algebraic identity.
    pub applications: Vec<Application>,
    /// Reads of input arrays that another thread of the block made and
    /// whose value this thread reads back from `__shared__` memory
    /// (`frontend::lower::shared_values`): the race queries assume the
    /// stated input orders of them as of the thread's own reads.
    pub forwarded_reads: Vec<ForwardedRead>,
    /// The arrays whose element type is a scalar (`float`, `int`): every
    /// write of one of their cells writes the whole cell, never one member
    /// of a struct or vector element, so a read of the cell returns what
    /// the last write wrote (`verify::own_slots`).
    pub scalar_arrays: Vec<ArrayId>,
    /// Every warp shuffle (`__shfl_down_sync`, `tile.shfl_down`), by the
    /// unknown its result is: what lane it reads and which value there.
    /// The race checker keeps the result an unknown; `equiv` may follow
    /// the exchange where it can show every lane read exists and runs it.
    pub shuffles: Vec<Shuffle>,
}

/// Which lane of its width-wide segment a shuffle reads (CUDA's
/// `__shfl*_sync`): `lane` is the source lane (`idx`), or the delta (`up`,
/// `down`) or mask (`xor`). A lane whose source falls outside its segment
/// (`up`, `down`) gets its own value back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleKind {
    Idx,
    Up,
    Down,
    Xor,
}

/// One shuffle: `value` = `source` as held by the lane `kind`/`lane`
/// picks, among the segments of `width` lanes of the warp.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shuffle {
    pub value: Var,
    pub kind: ShuffleKind,
    pub source: Expr,
    pub lane: Expr,
    pub width: i64,
    /// The lanes taking part (`__shfl*_sync`'s mask; all for a tile's).
    pub mask: Expr,
    /// The threads that run it (the path condition there, a loop's
    /// condition included, as an access's guard).
    pub guard: Expr,
}

impl Shuffle {
    /// The thread (linear rank in the block) whose `source` thread `t`
    /// receives, given the shuffle's lane operand: `t` itself where the
    /// lane falls outside the segment (`up`, `down`); `None` where the
    /// result is not one lane's value in CUDA (a `xor` into another
    /// segment), or where the mask leaves out `t` or the source lane.
    pub fn source_of(&self, t: i64, lane: i64, mask: i64) -> Option<i64> {
        let w = self.width;
        let (base, l) = (t - t.rem_euclid(w), t.rem_euclid(w));
        let src = match self.kind {
            ShuffleKind::Down if l + lane < w => t + lane,
            ShuffleKind::Up if l - lane >= 0 => t - lane,
            ShuffleKind::Down | ShuffleKind::Up => t,
            ShuffleKind::Xor if (0..w).contains(&(l ^ lane)) => base + (l ^ lane),
            ShuffleKind::Xor => return None,
            ShuffleKind::Idx => base + lane.rem_euclid(w),
        };
        let bit = |x: i64| (mask >> x.rem_euclid(32)) & 1 == 1;
        (bit(t) && bit(src)).then_some(src)
    }
}

/// The read `array[index]` that the thread which wrote a `__shared__` cell
/// made before its write, seen from the thread that reads the cell back:
/// `index` and `guard` (the writer exists and made that read) are in the
/// reader's terms, and `value` is the unknown the read returned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ForwardedRead {
    pub value: Var,
    pub array: ArrayId,
    pub index: Expr,
    pub guard: Expr,
}

/// Which function an [`Application`] computes: two applications of one
/// function to operands equal on the machine give one value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    /// The operation at one place of the code (a floating-point `+`, a
    /// conversion, a literal): its value is named by the unknown's name
    /// without its iteration, so only instances of that one unknown (the
    /// two threads', other iterations) are applications of it. Its
    /// operands must be the same computation of equal inputs.
    Site(String),
    /// A read of read-only memory the model does not see as an array (a
    /// texture fetch `tex1Dfetch<uint>`), by the call's name and template
    /// arguments: a function of its operands (the texture object and its
    /// coordinates) wherever it is called. Its operands are equal when
    /// equal in the model, like the indices of memory accesses.
    Fetch(String),
}

/// One unknown value `value` = `function(args)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Application {
    pub value: Var,
    pub function: Function,
    pub args: Vec<Expr>,
}

/// What `__distinct(a)` / `__sorted(a)` promise about an input array: a
/// fact about the data the kernel is given, which no launch site shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OrderKind {
    /// Two reads of the array at different indices return different
    /// values (a permutation, the scan of a 0/1 array where the flag is
    /// set, unique keys).
    Distinct,
    /// Reads at indices `i < j` return `a[i] <= a[j]` (sorted keys).
    Sorted,
    /// The array is the prefix sum of the non-negative array `source`
    /// (`__exclusive_scan(a, source)`: `a[i]` sums `source[0..i)`;
    /// `__inclusive_scan`: `source[0..=i]`), whose total fits the element
    /// type: non-decreasing, and strictly increasing across an index whose
    /// `source` value counts (exclusive: `source[i] > 0` gives
    /// `a[i] < a[j]` for `i < j`; inclusive: `source[j] > 0` does). The
    /// offsets of a stream compaction: distinct where the flag is set.
    Scan { source: ArrayId, inclusive: bool },
}

impl OrderKind {
    /// The annotation's predicate (`__distinct`).
    pub fn predicate(self) -> &'static str {
        match self {
            OrderKind::Distinct => "__distinct",
            OrderKind::Sorted => "__sorted",
            OrderKind::Scan {
                inclusive: false, ..
            } => "__exclusive_scan",
            OrderKind::Scan {
                inclusive: true, ..
            } => "__inclusive_scan",
        }
    }
}

/// One stated fact about an input array (never one the kernel writes:
/// such a statement is set aside by lowering).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InputOrder {
    pub array: ArrayId,
    pub kind: OrderKind,
    /// How many leading elements the fact is about (`__sorted(keys, n)`,
    /// a host sort of `n` keys), as a grid-uniform expression; `None`: the
    /// whole array. Reads outside `0..extent` are not constrained.
    pub extent: Option<Expr>,
}

/// One atomic read-modify-write (`old = atomicAdd(&c[i], v)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AtomicOp {
    /// The id of its `AccessKind::Atomic` access (cell and guard).
    pub access: usize,
    /// The operation without scope suffix: `atomicAdd`, `atomicCAS`...
    pub op: String,
    /// The operands after the address (`v`; `compare, value` of a CAS), or
    /// `None` for an operand that is not an integer of the model.
    pub operands: Vec<Option<Expr>>,
    /// The variable that stands for the value it returns (a fresh unknown
    /// or a ticket), `None` when the operation's value is something else
    /// (the block ticket of the last-block pattern).
    pub result: Option<Var>,
    /// The call's value is discarded (`atomicAdd(&h[b], 1);`).
    pub discarded: bool,
    pub span: Span,
    pub text: String,
}

/// One last-block pattern (`__threadfence(); t = atomicInc(&done, N)`): the
/// block's ticket `ticket` (one value per block, the verifier checks that
/// one thread per block increments) and what the increment orders. A block
/// whose ticket is the number of blocks minus one is the last: every other
/// block incremented before it, so what each did before its increment
/// happens before what the last block does after its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LastBlock {
    pub ticket: Var,
    /// `N` of `atomicInc(&c, N)` (it wraps at N: tickets are distinct only
    /// for at most N + 1 increments); `None` for `atomicAdd(&c, 1)`.
    pub wrap: Option<Expr>,
    /// The increment's access id and guard.
    pub atomic: usize,
    pub atomic_guard: Expr,
    pub span: Span,
    /// The counter's text (the `fenced:` marker's target).
    pub counter: String,
    /// Accesses with a smaller id precede a barrier every thread of the
    /// block passes before the fence (the last such barrier before it).
    pub barrier_before: usize,
    /// Accesses with a smaller id precede the fence in program order.
    pub fence: usize,
    /// Accesses with this id or larger follow a barrier every thread of the
    /// block passes after the increment.
    pub barrier_after: Option<usize>,
    /// The ids of those two barriers (never called redundant: the
    /// ordering across blocks rests on them).
    pub barriers: Vec<usize>,
}

/// What kind of claim an `Assertion` is (its wording in findings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssertionKind {
    /// `__assert(c)`.
    Assert,
    /// `__invariant(c)` / `__global_invariant(c)` at the head of a loop body.
    Invariant,
    /// `__requires(c)` of an inlined `__device__` function: a precondition
    /// its caller must establish.
    Precondition,
    /// `__syncwarp(mask)` of a group of lanes: the calling lane must be in
    /// the mask (else the behaviour is undefined).
    WarpMask,
}

/// A condition every thread that reaches it must satisfy. Values of the
/// other thread of the query (`__other_int`, `__uniform_int`...) are
/// variables marked with `OTHER_THREAD`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Assertion {
    pub kind: AssertionKind,
    pub cond: Expr,
    pub guard: Expr,
    pub span: Span,
    pub text: String,
    pub loops: Vec<usize>,
    /// A claim of a loop head: the loop's counter and condition. The head
    /// of iteration k is reached when the condition held for 0..k.
    pub head: Option<(Var, Expr)>,
    /// For a precondition: the call it is checked at.
    pub call_site: Option<Span>,
}

impl Expr {
    /// Whether the expression refers to the other thread of the query.
    pub fn mentions_other_thread(&self) -> bool {
        let mut found = false;
        self.for_each_var(&mut |v| found |= v.name.ends_with(OTHER_THREAD));
        found
    }
}

impl Kernel {
    /// Every access, in program order.
    pub fn accesses(&self) -> Vec<&Access> {
        self.collect(|s| match s {
            Stmt::Access(a) => Some(a),
            _ => None,
        })
    }

    pub fn barriers(&self) -> Vec<&Barrier> {
        self.collect(|s| match s {
            Stmt::Barrier(b) => Some(b),
            _ => None,
        })
    }

    pub fn loops(&self) -> Vec<&Loop> {
        self.collect(|s| match s {
            Stmt::Loop(l) => Some(l),
            _ => None,
        })
    }

    fn collect<'a, T>(&'a self, pick: impl Fn(&'a Stmt) -> Option<&'a T>) -> Vec<&'a T> {
        let mut out = Vec::new();
        walk(&self.body, &mut |s| out.extend(pick(s)));
        out
    }

    /// Moves every span of the model by `delta` bytes (lines and columns are
    /// kept): the model of the same definition at another offset.
    pub fn shift_offsets(&mut self, delta: i64) {
        self.for_each_offset_mut(&mut |offset| {
            *offset = (i64::from(*offset) + delta).clamp(0, i64::from(u32::MAX)) as u32;
        });
    }

    /// Whether every span of the model lies inside `[start, end]` (byte
    /// offsets): a model that points only into its own definition.
    pub fn spans_within(&self, start: u32, end: u32) -> bool {
        let mut inside = true;
        self.clone().for_each_offset_mut(&mut |offset| {
            inside &= (start..=end).contains(offset);
        });
        inside
    }

    /// Every byte offset the model records (spans, statement positions).
    fn for_each_offset_mut(&mut self, f: &mut dyn FnMut(&mut u32)) {
        fn span(s: &mut Span, f: &mut dyn FnMut(&mut u32)) {
            f(&mut s.start.offset);
            f(&mut s.end.offset);
        }
        fn stmts(body: &mut [Stmt], f: &mut dyn FnMut(&mut u32)) {
            for s in body {
                match s {
                    Stmt::Access(a) => span(&mut a.span, f),
                    Stmt::Barrier(b) => {
                        span(&mut b.span, f);
                        span(&mut b.stmt_span, f);
                        for (s, _) in &mut b.conditions {
                            span(s, f);
                        }
                    }
                    Stmt::If(a, b) => {
                        stmts(a, f);
                        stmts(b, f);
                    }
                    Stmt::Loop(l) => {
                        span(&mut l.span, f);
                        stmts(&mut l.body, f);
                    }
                    Stmt::LoopExit(_) => {}
                }
            }
        }
        span(&mut self.span, f);
        span(&mut self.def_span, f);
        for u in &mut self.unsupported {
            span(&mut u.span, f);
        }
        for (offset, _) in &mut self.stmt_guards {
            f(offset);
        }
        for op in &mut self.atomic_ops {
            span(&mut op.span, f);
        }
        for a in &mut self.assertions {
            span(&mut a.span, f);
            if let Some(site) = &mut a.call_site {
                span(site, f);
            }
        }
        for a in &mut self.assumption_texts {
            span(&mut a.span, f);
        }
        for (s, _) in &mut self.unused_specs {
            span(s, f);
        }
        stmts(&mut self.body, f);
    }
}

/// Pre-order walk over statements.
pub fn walk<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match s {
            Stmt::If(a, b) => {
                walk(a, f);
                walk(b, f);
            }
            Stmt::Loop(l) => walk(&l.body, f),
            _ => {}
        }
    }
}

/// A readable listing of the model: the snapshot format of the corpus tests.
pub fn render(kernel: &Kernel) -> String {
    let mut out = String::new();
    out.push_str(&format!("kernel {}\n", kernel.name));
    for a in &kernel.arrays {
        let dims: Vec<String> = a
            .dims
            .iter()
            .map(|d| d.map(|d| d.to_string()).unwrap_or_else(|| "?".into()))
            .collect();
        out.push_str(&format!(
            "  array {} {:?} [{}]{}\n",
            a.name,
            a.space,
            dims.join("]["),
            if a.byte_addressed { " bytes" } else { "" }
        ));
    }
    if let Some(n) = kernel.max_threads {
        out.push_str(&format!("  launch_bounds {n}\n"));
    }
    for a in &kernel.assumptions {
        out.push_str(&format!("  assume {a}\n"));
    }
    for o in &kernel.input_orders {
        let name = &kernel.arrays[o.array].name;
        let source = match o.kind {
            OrderKind::Scan { source, .. } => format!(", {}", kernel.arrays[source].name),
            _ => String::new(),
        };
        let extent = o
            .extent
            .as_ref()
            .map(|e| format!(", {e}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  assume input {}({name}{source}{extent})\n",
            o.kind.predicate()
        ));
    }
    for f in &kernel.forwarded_reads {
        out.push_str(&format!(
            "  forwarded {} = {}[{}] if {}\n",
            f.value, kernel.arrays[f.array].name, f.index, f.guard
        ));
    }
    if kernel.warp_width != 32 {
        out.push_str(&format!("  warp_width {}\n", kernel.warp_width));
    }
    for a in &kernel.assertions {
        out.push_str(&format!(
            "  check {:?} {} if {}   // line {}\n",
            a.kind,
            a.cond,
            a.guard,
            a.span.start.line + 1
        ));
    }
    for u in &kernel.unsupported {
        out.push_str(&format!(
            "  not-verified line {}: {}\n",
            u.span.start.line + 1,
            u.what
        ));
    }
    render_stmts(kernel, &kernel.body, 1, &mut out);
    out
}

fn render_stmts(k: &Kernel, stmts: &[Stmt], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for s in stmts {
        match s {
            Stmt::Access(a) => out.push_str(&format!(
                "{pad}{:?} {}[{}]{} if {}   // line {}\n",
                a.kind,
                k.arrays[a.array].name,
                a.index,
                if a.width == 1 {
                    String::new()
                } else {
                    format!(" x{} bytes", a.width)
                },
                a.guard,
                a.span.start.line + 1
            )),
            Stmt::Barrier(b) => out.push_str(&format!(
                "{pad}barrier {:?} if {}   // line {}\n",
                b.kind,
                b.guard,
                b.span.start.line + 1
            )),
            Stmt::If(t, e) => {
                out.push_str(&format!("{pad}if {{\n"));
                render_stmts(k, t, depth + 1, out);
                out.push_str(&format!("{pad}}} else {{\n"));
                render_stmts(k, e, depth + 1, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::LoopExit(g) => out.push_str(&format!("{pad}break if {g}\n")),
            Stmt::Loop(l) => {
                let vars: Vec<String> = l
                    .display
                    .iter()
                    .map(|(n, e)| format!("{n} = {e}"))
                    .collect();
                out.push_str(&format!(
                    "{pad}loop {} while {} [{}] {{\n",
                    l.counter,
                    l.guard,
                    vars.join(", ")
                ));
                render_stmts(k, &l.body, depth + 1, out);
                out.push_str(&format!("{pad}}}\n"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Expr {
        Expr::Var(Var::new(name, VarKind::Param { lo: 0, hi: 9 }))
    }

    /// A walk that visits shared subexpressions once sees every variable
    /// of a chain of merges built on one another (each level sharing the
    /// one below twice: 2^40 paths as a tree), and stops at the first
    /// thread-scoped one.
    #[test]
    fn scope_and_vars_of_shared_merges() {
        let t = Expr::Var(Var::new("threadIdx.x", VarKind::ThreadIdx(0)));
        let mut e = var("p");
        for i in 0..40 {
            let c = Expr::bin(BinOp::Lt, var(&format!("c{i}")), e.clone());
            e = Expr::ite(c, Expr::add(e.clone(), Expr::Const(1)), e);
        }
        assert_eq!(e.scope(), Scope::Grid);
        assert_eq!(e.vars().len(), 41);
        let with_thread = Expr::add(e.clone(), t);
        assert_eq!(with_thread.scope(), Scope::Thread);
        assert_eq!(with_thread.vars().len(), 42);
    }

    /// The digest is structural: the same with and without the memo, for a
    /// shared subexpression and for an equal copy of it; different
    /// expressions get different digests.
    #[test]
    fn digests_are_structural_with_and_without_the_memo() {
        let shared = Expr::and(
            Expr::bin(BinOp::Lt, var("i"), var("n")),
            Expr::bin(BinOp::Ge, var("i"), Expr::Const(0)),
        );
        let copy = Expr::and(
            Expr::bin(BinOp::Lt, var("i"), var("n")),
            Expr::bin(BinOp::Ge, var("i"), Expr::Const(0)),
        );
        let a = Expr::and(shared.clone(), var("x"));
        let b = Expr::and(shared.clone(), var("x"));
        let c = Expr::and(copy, var("x"));
        let d = Expr::and(shared, var("y"));
        let plain: Vec<u64> = [&a, &b, &c, &d].iter().map(|e| e.digest()).collect();
        let memo: Vec<u64> =
            with_digest_memo(|| [&a, &b, &c, &d].iter().map(|e| e.digest()).collect());
        assert_eq!(plain, memo);
        assert_eq!(plain[0], plain[1]);
        assert_eq!(plain[0], plain[2]);
        assert_ne!(plain[0], plain[3]);
        // The memo is gone afterwards, also when the closure unwinds.
        let _ = std::panic::catch_unwind(|| with_digest_memo(|| panic!("inside")));
        assert!(DIGESTS.with(|m| m.borrow().is_none()));
    }
}
