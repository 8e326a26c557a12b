//! Types and values with the machine's arithmetic: integers wrap at their
//! width, `float` rounds to f32 after every operation.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scal {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Scal {
    pub fn is_float(self) -> bool {
        matches!(self, Scal::F32 | Scal::F64)
    }

    fn bits(self) -> u32 {
        match self {
            Scal::Bool => 1,
            Scal::I8 | Scal::U8 => 8,
            Scal::I16 | Scal::U16 => 16,
            Scal::I32 | Scal::U32 | Scal::F32 => 32,
            Scal::I64 | Scal::U64 | Scal::F64 => 64,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Scal::I8 | Scal::I16 | Scal::I32 | Scal::I64)
    }

    /// Bytes of one element (for byte-range overlap of accesses).
    pub fn size(self) -> u64 {
        match self {
            Scal::Bool | Scal::I8 | Scal::U8 => 1,
            Scal::I16 | Scal::U16 => 2,
            Scal::I32 | Scal::U32 | Scal::F32 => 4,
            _ => 8,
        }
    }

    /// `i` wrapped to this integer type.
    pub fn wrap(self, i: i128) -> i128 {
        match self {
            Scal::Bool => i128::from(i != 0),
            _ => {
                let bits = self.bits();
                let m = i & ((1i128 << bits) - 1);
                if self.signed() && m >> (bits - 1) == 1 {
                    m - (1i128 << bits)
                } else {
                    m
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Void,
    /// A cooperative group handle (`cg::thread_block`, a tile).
    S(Scal),
    Ptr(Box<Ty>),
    Array(Box<Ty>, usize),
    Group,
    /// A struct (index into `Program::structs`) and the cells it takes.
    Struct(usize, usize),
}

impl Ty {
    /// Elements (scalars) of memory one value of this type takes.
    pub fn cells(&self) -> usize {
        match self {
            Ty::Array(t, n) => t.cells() * n,
            Ty::Struct(_, n) => *n,
            _ => 1,
        }
    }
}

/// Where a pointer points: a buffer, an offset in elements of that buffer,
/// and the type pointed to.
#[derive(Clone, Debug, PartialEq)]
pub struct Ptr {
    pub buf: usize,
    pub off: i64,
    pub to: Ty,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i128, Scal),
    Float(f64, Scal),
    Ptr(Ptr),
    Null,
    Void,
    /// A cooperative group: 0 the thread block, N a tile of N lanes.
    Group(u32),
}

impl Value {
    pub fn int(i: i128) -> Value {
        Value::Int(Scal::I32.wrap(i), Scal::I32)
    }

    pub fn uint(i: i128) -> Value {
        Value::Int(Scal::U32.wrap(i), Scal::U32)
    }

    pub fn of_bool(b: bool) -> Value {
        Value::Int(i128::from(b), Scal::Bool)
    }

    pub fn zero(ty: &Ty) -> Value {
        match ty {
            Ty::S(s) if s.is_float() => Value::Float(0.0, *s),
            Ty::S(s) => Value::Int(0, *s),
            Ty::Ptr(_) => Value::Null,
            _ => Value::Void,
        }
    }

    pub fn truthy(&self) -> Result<bool, String> {
        Ok(match self {
            Value::Int(i, _) => *i != 0,
            Value::Float(f, _) => *f != 0.0,
            Value::Ptr(_) => true,
            Value::Null => false,
            Value::Void => return Err("a void value used as a condition".into()),
            Value::Group(_) => return Err("a group used as a condition".into()),
        })
    }

    pub fn as_i128(&self) -> Result<i128, String> {
        match self {
            Value::Int(i, _) => Ok(*i),
            Value::Float(f, _) => Ok(*f as i128),
            _ => Err("a pointer used as a number".into()),
        }
    }

    pub fn as_f64(&self) -> Result<f64, String> {
        match self {
            Value::Int(i, _) => Ok(*i as f64),
            Value::Float(f, _) => Ok(*f),
            _ => Err("a pointer used as a number".into()),
        }
    }

    pub fn scal(&self) -> Option<Scal> {
        match self {
            Value::Int(_, s) | Value::Float(_, s) => Some(*s),
            _ => None,
        }
    }

    /// This value converted to `ty`, as an assignment or a cast does.
    pub fn convert(self, ty: &Ty) -> Result<Value, String> {
        match ty {
            Ty::S(s) => self.into_scal(*s),
            Ty::Ptr(to) => match self {
                Value::Ptr(p) if p.to == **to || **to == Ty::Void || p.to == Ty::Void => {
                    Ok(Value::Ptr(Ptr {
                        to: if **to == Ty::Void {
                            p.to
                        } else {
                            (**to).clone()
                        },
                        ..p
                    }))
                }
                Value::Ptr(_) => Err("a cast between pointers to different types".into()),
                Value::Null => Ok(Value::Null),
                Value::Int(0, _) => Ok(Value::Null),
                _ => Err("an integer converted to a pointer".into()),
            },
            Ty::Void => Ok(Value::Void),
            Ty::Array(..) => Err("an array assigned as a whole".into()),
            // A struct value is the address of its cells.
            Ty::Struct(..) => match self {
                Value::Ptr(p) if p.to == *ty => Ok(Value::Ptr(p)),
                _ => Err("a value converted to a struct".into()),
            },
            Ty::Group => match self {
                Value::Group(g) => Ok(Value::Group(g)),
                _ => Err("a value converted to a cooperative group".into()),
            },
        }
    }

    pub fn into_scal(self, s: Scal) -> Result<Value, String> {
        Ok(match (self, s) {
            (Value::Int(i, _), Scal::F32) => Value::Float(i as f64 as f32 as f64, s),
            (Value::Int(i, _), Scal::F64) => Value::Float(i as f64, s),
            (Value::Int(i, _), _) => Value::Int(s.wrap(i), s),
            (Value::Float(f, _), Scal::F32) => Value::Float(f as f32 as f64, s),
            (Value::Float(f, _), Scal::F64) => Value::Float(f, s),
            (Value::Float(f, _), Scal::Bool) => Value::Int(i128::from(f != 0.0), s),
            (Value::Float(f, _), _) => {
                if f.is_nan() || f.abs() > 1e30 {
                    return Err("a float out of the integer range converted to an integer".into());
                }
                Value::Int(s.wrap(f.trunc() as i128), s)
            }
            (Value::Ptr(_), Scal::Bool) => Value::of_bool(true),
            (Value::Null, Scal::Bool) => Value::of_bool(false),
            (Value::Ptr(_), _) => return Err("a pointer converted to an integer".into()),
            (Value::Null, _) => Value::Int(0, s),
            (Value::Void, _) => return Err("a void value used".into()),
            (Value::Group(_), _) => return Err("a cooperative group used as a number".into()),
        })
    }
}

/// The type both operands of an arithmetic operator are converted to (the
/// usual arithmetic conversions).
pub fn common(a: Scal, b: Scal) -> Scal {
    use Scal::*;
    if a == F64 || b == F64 {
        return F64;
    }
    if a == F32 || b == F32 {
        return F32;
    }
    let promote = |s: Scal| if s.bits() < 32 { I32 } else { s };
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (wide, narrow) = if a.bits() >= b.bits() { (a, b) } else { (b, a) };
    if wide.bits() > narrow.bits() {
        // The wider type holds every value of the narrower one.
        return wide;
    }
    // Same width, one signed, one unsigned: unsigned.
    if a.signed() {
        b
    } else {
        a
    }
}

/// The integer promotion of a unary operand.
pub fn promote(s: Scal) -> Scal {
    if !s.is_float() && s.bits() < 32 {
        Scal::I32
    } else {
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    LAnd,
    LOr,
}

/// Arithmetic and comparison of two numbers (not `&&`/`||`, not pointers).
pub fn arith(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
    // The common case first: two integers of one type of at least `int`'s
    // width need no conversion.
    if let (Value::Int(x, s), Value::Int(y, t)) = (a, b) {
        if s == t && matches!(s, Scal::I32 | Scal::U32 | Scal::I64 | Scal::U64) {
            let (x, y, s) = (*x, *y, *s);
            let r = match op {
                BinOp::Add => Some(Value::Int(s.wrap(x + y), s)),
                BinOp::Sub => Some(Value::Int(s.wrap(x - y), s)),
                BinOp::Mul => Some(Value::Int(s.wrap(x * y), s)),
                BinOp::And => Some(Value::Int(x & y, s)),
                BinOp::Or => Some(Value::Int(x | y, s)),
                BinOp::Xor => Some(Value::Int(s.wrap(x ^ y), s)),
                BinOp::Lt => Some(Value::of_bool(x < y)),
                BinOp::Gt => Some(Value::of_bool(x > y)),
                BinOp::Le => Some(Value::of_bool(x <= y)),
                BinOp::Ge => Some(Value::of_bool(x >= y)),
                BinOp::Eq => Some(Value::of_bool(x == y)),
                BinOp::Ne => Some(Value::of_bool(x != y)),
                _ => None,
            };
            if let Some(r) = r {
                return Ok(r);
            }
        }
    }
    let (sa, sb) = match (a.scal(), b.scal()) {
        (Some(x), Some(y)) => (x, y),
        _ => return Err("pointer arithmetic of this kind".into()),
    };
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        let s = promote(sa);
        if s.is_float() || sb.is_float() {
            return Err("a shift of a float".into());
        }
        let x = a.as_i128()?;
        let n = b.as_i128()?;
        if n < 0 || n >= i128::from(s.bits()) {
            return Err("a shift by the type's width or more (undefined)".into());
        }
        let r = if op == BinOp::Shl { x << n } else { x >> n };
        return Ok(Value::Int(s.wrap(r), s));
    }
    let s = common(sa, sb);
    if s.is_float() {
        let x = a.as_f64()?;
        let y = b.as_f64()?;
        let round = |v: f64| if s == Scal::F32 { v as f32 as f64 } else { v };
        let (x, y) = (round(x), round(y));
        let f = |v: f64| Ok(Value::Float(round(v), s));
        return match op {
            BinOp::Add => f(x + y),
            BinOp::Sub => f(x - y),
            BinOp::Mul => f(x * y),
            BinOp::Div => f(x / y),
            BinOp::Rem => f(x % y),
            BinOp::Lt => Ok(Value::of_bool(x < y)),
            BinOp::Gt => Ok(Value::of_bool(x > y)),
            BinOp::Le => Ok(Value::of_bool(x <= y)),
            BinOp::Ge => Ok(Value::of_bool(x >= y)),
            BinOp::Eq => Ok(Value::of_bool(x == y)),
            BinOp::Ne => Ok(Value::of_bool(x != y)),
            _ => Err("a bitwise operator on a float".into()),
        };
    }
    // Both converted to the common type first: that is where `-1 < 0u`
    // becomes false.
    let x = s.wrap(a.as_i128()?);
    let y = s.wrap(b.as_i128()?);
    let i = |v: i128| Ok(Value::Int(s.wrap(v), s));
    match op {
        BinOp::Add => i(x + y),
        BinOp::Sub => i(x - y),
        BinOp::Mul => i(x * y),
        BinOp::Div | BinOp::Rem if y == 0 => Err("integer division by zero".into()),
        BinOp::Div => i(x / y),
        BinOp::Rem => i(x % y),
        BinOp::And => i(x & y),
        BinOp::Or => i(x | y),
        BinOp::Xor => i(x ^ y),
        BinOp::Lt => Ok(Value::of_bool(x < y)),
        BinOp::Gt => Ok(Value::of_bool(x > y)),
        BinOp::Le => Ok(Value::of_bool(x <= y)),
        BinOp::Ge => Ok(Value::of_bool(x >= y)),
        BinOp::Eq => Ok(Value::of_bool(x == y)),
        BinOp::Ne => Ok(Value::of_bool(x != y)),
        BinOp::Shl | BinOp::Shr | BinOp::LAnd | BinOp::LOr => unreachable!("handled above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_arithmetic_wraps() {
        let base = Value::uint(0xffff_fff0);
        let t = Value::uint(0x20);
        let sum = arith(BinOp::Add, &base, &t).unwrap();
        assert_eq!(sum, Value::uint(0x10));
        assert_eq!(arith(BinOp::Lt, &sum, &base).unwrap(), Value::of_bool(true));
    }

    #[test]
    fn mixed_signedness_compares_as_unsigned() {
        let r = arith(BinOp::Lt, &Value::int(-1), &Value::uint(0)).unwrap();
        assert_eq!(r, Value::of_bool(false));
        let r = arith(BinOp::Lt, &Value::int(-1), &Value::Int(0, Scal::I64)).unwrap();
        assert_eq!(r, Value::of_bool(true));
    }

    #[test]
    fn nan_is_not_equal_to_itself() {
        let nan = Value::Float(f64::NAN, Scal::F32);
        assert_eq!(arith(BinOp::Ne, &nan, &nan).unwrap(), Value::of_bool(true));
    }

    #[test]
    fn float_rounds_to_single_precision() {
        let a = Value::Float(16_777_216.0, Scal::F32);
        let one = Value::Float(1.0, Scal::F32);
        assert_eq!(arith(BinOp::Add, &a, &one).unwrap(), a);
    }
}
