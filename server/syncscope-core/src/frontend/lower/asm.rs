//! Inline PTX (`asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r)
//! : "r"(a), "r"(b), "r"(c))`): a statement of register arithmetic only
//! touches its operands, so it is modelled as reading its inputs and
//! writing unknown values to its outputs. Anything that may reach memory
//! or order threads (a load, store, atomic, barrier, fence, a `"memory"`
//! clobber, a memory operand, a jump) stays `not-verified`, named.

use super::*;

/// PTX instructions (the opcode before its first `.`) that compute on
/// registers only: no memory, no synchronisation, no control flow.
const REGISTER_ONLY: [&str; 62] = [
    "abs",
    "add",
    "addc",
    "and",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "brev",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cvt",
    "div",
    "dp2a",
    "dp4a",
    "ex2",
    "fma",
    "fns",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "max",
    "min",
    "mov",
    "mul",
    "mul24",
    "neg",
    "not",
    "or",
    "popc",
    "prmt",
    "rcp",
    "rem",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setp",
    "shf",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "sub",
    "subc",
    "tanh",
    "testp",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vmax",
    "vmin",
    "xor",
    "cvta",
];

impl<'a, 't> Lowerer<'a, 't> {
    /// An inline `asm` statement: see the module comment.
    pub(super) fn inline_asm(&mut self, node: Node) -> Value {
        if let Some(why) = self.asm_outside_model(node) {
            self.unsupported(node, why);
            // Its operands are still read and written (unknown values).
        }
        for input in operands(node, "input_operands") {
            if let Some(v) = input.field("value") {
                self.eval(v);
            }
        }
        for output in operands(node, "output_operands") {
            let Some(target) = output.field("value") else {
                continue;
            };
            let constraint = output
                .field("constraint")
                .map(|c| self.text(c))
                .unwrap_or_default();
            // `"+r"(x)`: read, then written.
            if constraint.contains('+') {
                self.eval(target);
            }
            let value = Value::Int(self.fresh_unknown("asm", Scope::Thread));
            if let Some(lv) = self.lvalue(target) {
                self.write_lvalue(&lv, value, target, AccessKind::Write);
            }
        }
        Value::Int(Expr::Const(0))
    }

    /// Why an `asm` statement is outside the model, or `None` when it
    /// computes on registers only.
    fn asm_outside_model(&self, node: Node) -> Option<String> {
        if node.field("goto_labels").is_some() {
            return Some("inline asm that jumps to labels".into());
        }
        let strings = |n: Node| -> String {
            let text = self.text(n);
            let mut out = String::new();
            let mut inside = false;
            let mut escaped = false;
            for ch in text.chars() {
                match (inside, escaped, ch) {
                    (true, false, '\\') => escaped = true,
                    (true, true, 'n' | 't') => {
                        out.push(' ');
                        escaped = false;
                    }
                    (true, true, c) => {
                        out.push(c);
                        escaped = false;
                    }
                    (_, false, '"') => inside = !inside,
                    (true, false, c) => out.push(c),
                    _ => {}
                }
            }
            out
        };
        if let Some(clobbers) = node.field("clobbers") {
            if strings(clobbers).contains("memory") {
                return Some("inline asm with a `\"memory\"` clobber".into());
            }
        }
        for list in ["output_operands", "input_operands"] {
            let Some(list) = node.field(list) else {
                continue;
            };
            let mut c = list.walk();
            for op in list.named_children(&mut c) {
                let constraint = op.field("constraint").map(strings).unwrap_or_default();
                if !constraint.chars().all(|ch| {
                    matches!(
                        ch,
                        '=' | '+' | '&' | 'r' | 'l' | 'h' | 'f' | 'd' | 'c' | 'n'
                    )
                }) {
                    return Some(format!(
                        "inline asm with the operand constraint `{constraint}`"
                    ));
                }
            }
        }
        let code = node.field("assembly_code").map(strings).unwrap_or_default();
        for stmt in code.split([';', '{', '}']) {
            let mut words = stmt.split_whitespace().peekable();
            // A guard predicate (`@p`, `@!p`) does not change what runs.
            while words.peek().is_some_and(|w| w.starts_with('@')) {
                words.next();
            }
            let Some(op) = words.next() else { continue };
            // Register declarations (`.reg .u32 t`).
            if op == ".reg" {
                continue;
            }
            let base = op.split('.').next().unwrap_or(op);
            if !REGISTER_ONLY.contains(&base) {
                return Some(format!("inline asm with the instruction `{op}`"));
            }
        }
        None
    }
}

/// The operands of one of an `asm` statement's operand lists.
fn operands<'n>(node: Node<'n>, list: &'static str) -> Vec<Node<'n>> {
    node.field(list)
        .map(|list| {
            let mut c = list.walk();
            list.named_children(&mut c)
                .filter(|o| o.kind().ends_with("_operand"))
                .collect()
        })
        .unwrap_or_default()
}
