//! `__constant__` inputs: `cudaMemcpyToSymbol(c_stride, &s, sizeof(int))`
//! before a launch gives the kernel the fact `c_stride == <s>`.
//!
//! The value a kernel reads from a `__constant__` scalar is whatever the
//! host copied last into that symbol of the kernel's own translation unit.
//! The fact is read only where that copy is certain:
//!
//! * the kernel is defined in this unit and the symbol is declared once in
//!   it, at file scope, `__constant__` and not `extern`, and no other file
//!   of the project names it (with relocatable device code another unit
//!   could reach an `extern` symbol);
//! * the unit's host code names the symbol once, in this copy (so no other
//!   copy, `cudaGetSymbolAddress` or `Async` copy may write it), and the
//!   copy runs once, before the launch, in its function's order;
//! * the copy is the whole scalar, host to device: `&v` of a local
//!   declared once with a known value, not written before the copy, of
//!   the symbol's own 32-bit integer type, and the size `sizeof` of that
//!   type, of `v` or of the symbol (any offset but 0 is refused).
//!
//! A kernel parameter of the symbol's name would make the fact read the
//! parameter: then nothing is read.

use super::{children, enclosing_function, linkage_items, strip_parentheses, Host};
use crate::syntax::node_text;
use tree_sitter::Node;

impl<'a, 't> Host<'a, 't> {
    /// The facts `symbol == value` of the copies into `__constant__`
    /// scalars before the launch of `kernel` (see the module's comment).
    pub(super) fn constant_symbol_facts(
        &self,
        kernel: &str,
        kernel_params: &[String],
        named_outside: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let defined_here = self
            .cx
            .functions
            .get(kernel)
            .is_some_and(|f| f.is_kernel && f.node.kind() == "function_definition");
        let Some(func) = enclosing_function(self.call) else {
            return out;
        };
        if !defined_here {
            return out;
        }
        let mut copies = Vec::new();
        let mut stack = vec![func];
        while let Some(n) = stack.pop() {
            if n.start_byte() >= self.call.start_byte() {
                continue;
            }
            if n.kind() == "call_expression"
                && n.child_by_field_name("function")
                    .is_some_and(|f| node_text(self.text, f) == "cudaMemcpyToSymbol")
            {
                copies.push(n);
            }
            stack.extend(children(n));
        }
        // Only symbols the kernel or a `__device__` function reads: a fact
        // about another one says nothing about this kernel.
        let read_by_device = |name: &str| {
            let root = root_of(self.call);
            children(root)
                .into_iter()
                .flat_map(linkage_items)
                .flat_map(|i| {
                    if i.kind() == "template_declaration" {
                        children(i)
                    } else {
                        vec![i]
                    }
                })
                .filter(|f| {
                    let other_kernel = crate::syntax::function_name(self.text, *f)
                        .is_some_and(|n| n != kernel)
                        && node_text(self.text, *f).contains("__global__");
                    f.kind() == "function_definition"
                        && is_device_code(self.text, *f)
                        && !other_kernel
                })
                .any(|f| mentions(self.text, f, name))
        };
        for copy in copies {
            if let Some((name, fact)) = self.copied_constant(copy, kernel_params, named_outside) {
                if read_by_device(&name) {
                    out.push(fact);
                }
            }
        }
        out
    }

    /// `symbol == value` for one `cudaMemcpyToSymbol` call, when it is
    /// certain at the launch.
    fn copied_constant(
        &self,
        copy: Node<'t>,
        kernel_params: &[String],
        named_outside: &dyn Fn(&str) -> bool,
    ) -> Option<(String, String)> {
        let args = copy.child_by_field_name("arguments").map(children)?;
        let (symbol, source, size) = (args.first()?, args.get(1)?, args.get(2)?);
        // cudaMemcpyToSymbol(symbol, src, count, offset = 0, kind = HostToDevice)
        if args.len() > 5
            || args.get(3).is_some_and(|o| self.value(*o) != Some(0))
            || args
                .get(4)
                .is_some_and(|k| node_text(self.text, *k) != "cudaMemcpyHostToDevice")
        {
            return None;
        }
        if symbol.kind() != "identifier" {
            return None;
        }
        let name = node_text(self.text, *symbol);
        if kernel_params.iter().any(|p| p == name) || named_outside(name) {
            return None;
        }
        let symbol_type = self.constant_scalar_type(name)?;
        if !self.only_host_mention(name, *symbol) {
            return None;
        }
        if !self.runs_in_order(copy) || !self.runs_once_before_launch(copy) {
            return None;
        }
        // `&v` of a local with a known value up to the copy.
        let source = strip_parentheses(*source);
        let op = source.child_by_field_name("operator")?;
        let v = source
            .child_by_field_name("argument")
            .filter(|a| a.kind() == "identifier")?;
        if source.kind() != "pointer_expression" || node_text(self.text, op) != "&" {
            return None;
        }
        let v_name = node_text(self.text, v);
        if self.declared_more_than_once(v_name) {
            return None;
        }
        let init = *self.initializers.get(v_name)?;
        let v_type = self.types.get(v_name)?;
        if plain_type(v_type) != symbol_type || !self.runs_in_order(init) {
            return None;
        }
        let written_before = self.write_nodes.iter().any(|(w, n)| {
            w == v_name
                && n.start_byte() < copy.start_byte()
                && !(n.start_byte() >= copy.start_byte() && n.end_byte() <= copy.end_byte())
        });
        if written_before || init.start_byte() > copy.start_byte() {
            return None;
        }
        let size = strip_parentheses(*size);
        let sized = size.kind() == "sizeof_expression" && {
            let inner = node_text(self.text, size)
                .trim_start_matches("sizeof")
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim()
                .to_string();
            inner == v_name || inner == name || plain_type(&inner) == symbol_type
        };
        if !sized {
            return None;
        }
        let value = self.value(init)?;
        let (lo, hi) = crate::frontend::int_range(&symbol_type)?;
        (lo..=hi)
            .contains(&value)
            .then(|| (name.to_string(), format!("{name} == {value}")))
    }

    /// The type of the one file-scope `__constant__ T name;` scalar of the
    /// unit (not `extern`), a 32-bit integer type.
    fn constant_scalar_type(&self, name: &str) -> Option<String> {
        let root = root_of(self.call);
        let mut found = Vec::new();
        for item in children(root).into_iter().flat_map(linkage_items) {
            if item.kind() != "declaration" {
                continue;
            }
            if declares(self.text, item, name) {
                found.push((node_text(self.text, item), item));
            }
        }
        let [(text, item)] = found[..] else {
            return None;
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        if !words.contains(&"__constant__") || words.contains(&"extern") {
            return None;
        }
        let ty = plain_type(node_text(self.text, item.child_by_field_name("type")?));
        crate::frontend::int_range(&ty).filter(|(lo, hi)| hi - lo <= i64::from(u32::MAX))?;
        Some(ty)
    }

    /// Whether `symbol` (the copy's first argument) is the only mention of
    /// `name` in the unit's host code: outside its declaration and outside
    /// every device function and kernel (which cannot write constant
    /// memory).
    fn only_host_mention(&self, name: &str, symbol: Node) -> bool {
        let root = root_of(self.call);
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" && is_device_code(self.text, n) {
                continue;
            }
            if n.kind() == "declaration" && declares(self.text, n, name) {
                continue;
            }
            if n.kind() == "identifier" && node_text(self.text, n) == name && n.id() != symbol.id()
            {
                return false;
            }
            stack.extend(children(n));
        }
        true
    }
}

/// Whether a function definition is device code: `__global__` or
/// `__device__` without `__host__`.
fn is_device_code(text: &str, f: Node) -> bool {
    let head_end = f
        .child_by_field_name("body")
        .map_or(f.end_byte(), |b| b.start_byte());
    let head = &text[f.start_byte()..head_end];
    let words: Vec<&str> = head
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    (words.contains(&"__global__") || words.contains(&"__device__")) && !words.contains(&"__host__")
}

/// A type's name without `const`, `static` and `__constant__`.
fn plain_type(ty: &str) -> String {
    ty.split_whitespace()
        .filter(|w| !matches!(*w, "const" | "static" | "__constant__" | "volatile"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the declaration `d` declares `name` itself.
fn declares(text: &str, d: Node, name: &str) -> bool {
    children(d).into_iter().any(|x| {
        let declared = match x.kind() {
            "identifier" => Some(x),
            "init_declarator" => x
                .child_by_field_name("declarator")
                .filter(|y| y.kind() == "identifier"),
            _ => None,
        };
        declared.is_some_and(|y| node_text(text, y) == name)
    })
}

/// Whether the identifier `name` occurs in `n`.
fn mentions(text: &str, n: Node, name: &str) -> bool {
    (n.kind() == "identifier" && node_text(text, n) == name)
        || children(n).into_iter().any(|m| mentions(text, m, name))
}

fn root_of(n: Node) -> Node {
    let mut r = n;
    while let Some(p) = r.parent() {
        r = p;
    }
    r
}
