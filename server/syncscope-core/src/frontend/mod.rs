//! Front end: the tree-sitter tree of a file → one [`Kernel`] model per
//! `__global__` function.
//!
//! Two stages: [`collect`] walks the translation unit once for what kernels
//! refer to (macros, `__device__` functions, constants, enums, global arrays,
//! template instantiations), honouring `#if`/`#ifdef` with the known macros;
//! then [`lower`] symbolically executes each kernel body into the model.

mod collect;
mod cpp;
mod lower;
mod preprocessor;

use crate::model::Kernel;
use crate::options::Options;
use crate::report::Span;
use crate::syntax::{declarator_name, function_name, has_qualifier, node_text, FieldExt};
use std::collections::HashMap;
use tree_sitter::Node;

pub(crate) use collect::{collect, struct_type_name, type_text};
pub(crate) use cpp::resolve_conditionals;
pub use cpp::{preprocess, Preprocessed};
pub(crate) use lower::{int_range, lower_kernel, type_bytes};
pub(crate) use preprocessor::{
    binop, condition_value, const_eval, macro_def, parse_int, preproc_branch,
};
pub use preprocessor::{device_pass_macros, pass_defines};

/// A `#define`.
#[derive(Clone, Debug)]
pub(crate) struct Macro {
    pub params: Option<Vec<String>>,
    pub body: String,
}

/// A `template <int N = 64>` parameter of a kernel or device function.
#[derive(Clone, Debug)]
pub(crate) struct TemplateParam {
    pub name: String,
    pub default: Option<String>,
    /// `typename T` / `class T`: a type, never a value (`T(0)` is a cast).
    pub is_type: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct FunctionDef<'t> {
    pub name: String,
    pub node: Node<'t>,
    pub is_kernel: bool,
    pub template_params: Vec<TemplateParam>,
}

/// A data member of a struct or class.
#[derive(Clone, Debug)]
pub(crate) struct StructField {
    pub name: String,
    /// The struct type of a by-value member (`Inner in;`), if it is one of
    /// the file's modelled structs.
    pub struct_type: Option<String>,
    /// An array member: a thread-private aggregate inside the object.
    pub array: bool,
    /// A pointer member.
    pub pointer: bool,
    /// The sizes of an array member's dimensions as written, outermost
    /// first, and its element type (for members of `__shared__` objects).
    pub dims: Vec<String>,
    pub elem_type: String,
}

/// A struct or class defined in the file whose objects the front end can
/// model: no base classes, not a template.
#[derive(Clone, Debug, Default)]
pub(crate) struct StructDef<'t> {
    /// Non-static data members, in declaration order.
    pub fields: Vec<StructField>,
    /// Member functions with a body (in the class or out of line), by name;
    /// constructors under the struct's own name. Each `FunctionDef::name` is
    /// `Struct::method`.
    pub methods: HashMap<String, Vec<FunctionDef<'t>>>,
    /// Member functions declared in the class (with or without a body).
    pub declared: Vec<String>,
    pub has_destructor: bool,
    pub has_constructor: bool,
}

/// A class or struct of the file as a type of objects that live in memory
/// (`lower::memory_objects`): every definition with a body, templates and
/// classes with base classes included.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassDef<'t> {
    /// Its own data members and member functions (not its bases').
    pub members: StructDef<'t>,
    /// Base classes as written (`Container<T>`), in declaration order.
    pub bases: Vec<String>,
    /// The class template's parameters (empty for a class).
    pub template_params: Vec<String>,
    /// Member functions this class declares `virtual`.
    pub virtuals: Vec<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct GlobalArray<'t> {
    pub name: String,
    pub declarator: Node<'t>,
    /// A file-scope `__shared__` array: one per block, not one for the grid.
    pub shared: bool,
    /// `extern __shared__`: the block's one dynamic buffer.
    pub dynamic: bool,
    /// The declared element type (`float`, `float4`), for byte sizes.
    pub elem_type: String,
}

/// Everything at file level that a kernel may refer to.
#[derive(Default)]
pub(crate) struct FileContext<'t> {
    /// The file's text, copied once for the lowering of every kernel (a
    /// copy per kernel made a file of 10,000 kernels quadratic).
    pub source: std::sync::Arc<str>,
    /// Whether the text names libcu++'s atomic types at all
    /// (`lower::libcu_atomics`); looked for once, not per kernel.
    pub mentions_atomic_types: bool,
    pub macros: HashMap<String, Macro>,
    pub functions: HashMap<String, FunctionDef<'t>>,
    /// Every definition of a function name that has several (C++
    /// overloads, `f(short *, int)` and `f(unsigned *)`), in source order:
    /// a call takes the one whose parameter count is its argument count.
    pub overloads: HashMap<String, Vec<FunctionDef<'t>>>,
    pub kernels: Vec<FunctionDef<'t>>,
    /// Integer constants: `const int`, `constexpr`, enumerators (source text of the value).
    pub constants: HashMap<String, Node<'t>>,
    pub enumerators: HashMap<String, i64>,
    pub global_arrays: Vec<GlobalArray<'t>>,
    /// Structs and classes whose objects can be modelled, by name.
    pub structs: HashMap<String, StructDef<'t>>,
    /// Every class and struct definition of the file, by name (a class
    /// template under its name without arguments): the types of objects in
    /// memory, their bases and virtual methods.
    pub classes: HashMap<String, ClassDef<'t>>,
    /// Unions the file names (`union Bits { .. };`, `typedef union { .. }
    /// Bits;`): their `union_specifier`, by name; an anonymous union that
    /// types a struct member, by its text.
    pub unions: HashMap<String, Node<'t>>,
    /// Conversion operators to a pointer (`operator T*()`) of structs and
    /// struct templates, by struct name: the SDK's `SharedMemory<T>` idiom.
    pub conversions: HashMap<String, FunctionDef<'t>>,
    /// Typedefs of plain types (`typedef unsigned char u8;`, `typedef
    /// float2 cData;`): the type each alias stands for, so a conversion to
    /// the alias narrows as the type does, `(u8)(x)` reads as a cast and a
    /// `cData*` view has the size of a `float2`.
    pub type_aliases: HashMap<String, String>,
    /// Explicit instantiations: kernel name → list of template argument lists.
    pub instantiations: HashMap<String, Vec<Vec<String>>>,
    /// Object-like macros already expanded to a constant (shared by kernels,
    /// which may be lowered on several threads).
    pub macro_constants: std::sync::Mutex<HashMap<String, i64>>,
    /// The directives that begin the branches the preprocessor skipped
    /// (`Options::skipped_branches`).
    pub skipped_branches: Vec<(Span, String)>,
    /// Launch dimensions mentioned by device functions and macros.
    pub helper_dims: std::sync::OnceLock<([bool; 3], [bool; 3])>,
}

/// Lowers every kernel of a file. Each result pairs a kernel model with its
/// definition span; a kernel whose lowering panicked is reported by the caller.
///
/// Files with many kernels are lowered on several threads (kernels are
/// independent given the file context); the result is in source order.
///
/// The conditionals are decided first, as the analysis decides them
/// ([`cpp::resolve_conditionals`]; `tree` is used when the text has none to
/// decide), so a model lowered here is the model `check` verifies.
pub fn lower_file(text: &str, tree: &tree_sitter::Tree, options: &Options) -> Vec<Kernel> {
    let resolved = resolve_conditionals(text, &pass_defines(options));
    let decided_tree;
    let with_skipped;
    let (text, tree, options) = match &resolved.text {
        std::borrow::Cow::Borrowed(_) => (text, tree, options),
        std::borrow::Cow::Owned(decided) => {
            decided_tree = crate::syntax::parse(decided, None);
            let mut o = options.clone();
            o.skipped_branches.extend(resolved.skipped.iter().cloned());
            with_skipped = o;
            (decided.as_str(), &decided_tree, &with_skipped)
        }
    };
    lower_file_reusing(text, tree, options, &|_| None)
        .into_iter()
        .map(|l| l.kernel)
        .collect()
}

/// A kernel's definition in the file and what its model depends on outside
/// its own text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelSite {
    /// The function definition (a `template <…>` prefix is not part of it:
    /// it belongs to the surroundings).
    pub span: Span,
    pub surroundings: Surroundings,
}

/// Everything outside the kernel definitions that lowering a kernel may
/// read: the file's text outside every kernel definition (macros, typedefs,
/// structs, `__device__` functions, globals, templates and instantiations,
/// `#if` directives, prototypes, host code), with each kernel's name at its
/// place (which kernels exist, and where, decides how a name resolves).
/// The options are not part of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Surroundings {
    /// The hash of that text.
    pub text: u64,
    /// The hash of that text with the position (offset and line) of each of
    /// its pieces: what a model whose spans point outside its own definition
    /// (an inlined device function's access) also depends on.
    pub placed: u64,
}

/// One kernel's model, where it comes from, and whether `reuse` gave it.
pub(crate) struct Lowered {
    pub kernel: Kernel,
    pub site: KernelSite,
    pub reused: bool,
}

/// [`lower_file`], taking from `reuse` the model of each kernel it can
/// answer for (the caller keys it by the kernel's own text, its site and the
/// options) and lowering only the others.
pub(crate) fn lower_file_reusing(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    reuse: &(dyn Fn(&KernelSite) -> Option<Kernel> + Sync),
) -> Vec<Lowered> {
    let cx = collect(text, tree.root_node(), options);
    let surroundings = surroundings(text, &cx.kernels);
    let sites: Vec<KernelSite> = cx
        .kernels
        .iter()
        .map(|k| KernelSite {
            span: Span::from_node(&k.node),
            surroundings,
        })
        .collect();
    let mut models: Vec<Option<Kernel>> = sites.iter().map(reuse).collect();
    let reused: Vec<bool> = models.iter().map(Option::is_some).collect();
    let todo: Vec<&FunctionDef> = cx
        .kernels
        .iter()
        .zip(&models)
        .filter(|(_, m)| m.is_none())
        .map(|(k, _)| k)
        .collect();
    let workers = crate::parallel::cores()
        .min(todo.len() / PARALLEL_MIN_KERNELS)
        .min(8);
    let fresh = if workers <= 1 {
        todo.iter().map(|k| lower_kernel(&cx, k, options)).collect()
    } else {
        crate::parallel::parallel_map(&todo, workers, crate::parallel::ANALYSIS_STACK, |k| {
            lower_kernel(&cx, k, options)
        })
    };
    let mut fresh = fresh.into_iter();
    for m in models.iter_mut().filter(|m| m.is_none()) {
        *m = fresh.next();
    }
    models
        .into_iter()
        .zip(sites)
        .zip(reused)
        .filter_map(|((kernel, site), reused)| {
            Some(Lowered {
                kernel: kernel?,
                site,
                reused,
            })
        })
        .collect()
}

/// The [`Surroundings`] of the file's kernels.
fn surroundings(text: &str, kernels: &[FunctionDef]) -> Surroundings {
    use std::hash::{Hash, Hasher};
    let mut defs: Vec<&FunctionDef> = kernels.iter().collect();
    defs.sort_by_key(|k| k.node.start_byte());
    let mut plain = std::collections::hash_map::DefaultHasher::new();
    let mut placed = std::collections::hash_map::DefaultHasher::new();
    let (mut from, mut line, mut column) = (0usize, 0usize, 0usize);
    for k in defs {
        let (start, end) = (k.node.start_byte(), k.node.end_byte());
        let piece = text.get(from..start.max(from)).unwrap_or("");
        (piece, k.name.as_str()).hash(&mut plain);
        (piece, k.name.as_str(), from, line, column).hash(&mut placed);
        if end > from {
            from = end;
            (line, column) = (k.node.end_position().row, k.node.end_position().column);
        }
    }
    let rest = text.get(from..).unwrap_or("");
    rest.hash(&mut plain);
    (rest, from, line, column).hash(&mut placed);
    Surroundings {
        text: plain.finish(),
        placed: placed.finish(),
    }
}

/// Fewest kernels per lowering thread (below it a thread costs more than it
/// saves).
const PARALLEL_MIN_KERNELS: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literals() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("256u"), Some(256));
        assert_eq!(parse_int("1.0f"), None);
        assert_eq!(parse_int("99999999999999999999999"), None);
    }

    #[test]
    fn collects_kernels_macros_and_taken_branches() {
        let src = "#define A 1\n#if A\n__global__ void k1() {}\n#else\n__global__ void k2() {}\n#endif\n#ifndef B\n__device__ int f() { return 1; }\n#endif\nnamespace n { __global__ void k3() {} }\n";
        let tree = crate::syntax::parse(src, None);
        let cx = collect(src, tree.root_node(), &Options::default());
        let names: Vec<_> = cx.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["k1", "k3"]);
        assert!(cx.functions.contains_key("f"));
    }

    #[test]
    fn one_shot_flags_are_cells_set_to_one_constant() {
        let src = "__device__ int g; __device__ int r; __device__ int two; __device__ int idx;\n\
            __global__ void once(int *o) { if (atomicCAS(&g, 0, 1) == 0) o[0] = 1; atomicExch(&g, 1); }\n\
            __global__ void reset(int *o) { if (atomicCAS(&r, 0, 1) == 0) o[0] = 1; r = 0; }\n\
            __global__ void values(int *o) { atomicCAS(&two, 0, 1); atomicExch(&two, 0); }\n\
            __global__ void index(int *o) { atomicExch(&idx, (int)threadIdx.x); }\n\
            __global__ void shared(int *o) { __shared__ int s; if (threadIdx.x == 0) s = 0;\n\
              __syncthreads(); if (atomicCAS(&s, 0, 1) == 0) o[0] = 1; }\n\
            __global__ void unordered(int *o) { __shared__ int s; if (threadIdx.x == 0) s = 0;\n\
              if (atomicCAS(&s, 0, 1) == 0) o[0] = 1; }\n";
        let tree = crate::syntax::parse(src, None);
        let flags: Vec<(String, usize)> = lower_file(src, &tree, &Options::default())
            .into_iter()
            .map(|k| (k.name, k.flag_cells.len()))
            .collect();
        let expected = [
            ("once", 1),
            ("reset", 0),
            ("values", 0),
            ("index", 0),
            ("shared", 1),
            ("unordered", 0),
        ];
        let expected: Vec<(String, usize)> =
            expected.iter().map(|(n, c)| (n.to_string(), *c)).collect();
        assert_eq!(flags, expected);
    }
}
