//! Equivalence of two versions of a kernel (`syncscope equiv`, after
//! PUG-para): both leave the same value in every global location, for all
//! inputs and launch sizes, under the same preconditions and launch options.
//!
//! 1. Each version is checked by `check`'s engine first: a version that is
//!    not verified race-free is refused (the question needs a deterministic
//!    result).
//! 2. Both are lowered again with read values (`Options::track_values`).
//! 3. A concrete differential search runs both on small launches with
//!    deterministic inputs ([`concrete`]); a difference is a counterexample
//!    that the interpreter itself produced.
//! 4. The proof ([`symbolic`]): a symbolic location, the thread that writes
//!    it in each version, values through shared memory and barriers,
//!    operations on values uninterpreted (commutative); every query unsat.
//!
//! Anything else is `unknown` with its reason; never "equivalent".

mod concrete;
mod symbolic;

use crate::model::{Kernel, VarKind};
use crate::options::Options;
use crate::report::KernelStatus;
use std::collections::BTreeMap;
use std::time::Instant;

/// One version: the source text of its file, its name for messages, and the
/// kernel's name.
pub struct Version<'a> {
    pub label: &'a str,
    pub text: &'a str,
    pub kernel: &'a str,
}

/// A location where the two versions leave different values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    pub block_dim: [i64; 3],
    pub grid_dim: [i64; 3],
    /// Scalar parameters of the launch.
    pub params: Vec<(String, i64)>,
    pub array: String,
    pub index: i64,
    /// What each version leaves there (`None`: it does not write it, the
    /// input value stays).
    pub value_a: Option<i64>,
    pub value_b: Option<i64>,
    /// The written value of each version as an expression of the model
    /// (its write statement's text and value), or why there is none.
    pub expr_a: String,
    pub expr_b: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proved: every query of the proof was unsat.
    Equivalent,
    /// A difference, found and replayed on the concrete interpreter.
    Different(Counterexample),
    /// Neither: why.
    Unknown(String),
    /// A version is not verified race-free (or not analysable): why.
    Refused(String),
}

#[derive(Clone, Debug)]
pub struct EquivReport {
    pub verdict: Verdict,
    pub millis: u64,
    /// Concrete launches both versions ran on.
    pub launches: usize,
    /// SMT queries of the proof.
    pub queries: u32,
    /// What the comparison assumed or did to match the versions
    /// ("parameters matched by position: a ↔ b", `--assoc`).
    pub notes: Vec<String>,
}

impl EquivReport {
    /// The report as JSON (`syncscope equiv --format json` and the
    /// server's `syncscope.compareWith`): `a`, `b`, `verdict`, `millis`,
    /// `launches`, `queries`, and `counterexample` or `reason`.
    pub fn json(&self, a: &str, b: &str) -> serde_json::Value {
        use serde_json::json;
        let mut v = json!({
            "a": a,
            "b": b,
            "verdict": self.verdict.name(),
            "millis": self.millis,
            "launches": self.launches,
            "queries": self.queries,
        });
        if !self.notes.is_empty() {
            v["notes"] = json!(self.notes);
        }
        match &self.verdict {
            Verdict::Equivalent => {}
            Verdict::Different(c) => {
                v["counterexample"] = json!({
                    "block_dim": c.block_dim,
                    "grid_dim": c.grid_dim,
                    "params": c.params.iter().map(|(n, x)| json!({"name": n, "value": x})).collect::<Vec<_>>(),
                    "array": c.array,
                    "index": c.index,
                    "value_a": c.value_a,
                    "value_b": c.value_b,
                    "expr_a": c.expr_a,
                    "expr_b": c.expr_b,
                })
            }
            Verdict::Unknown(why) | Verdict::Refused(why) => v["reason"] = json!(why),
        }
        v
    }
}

impl Verdict {
    /// `equivalent`, `not-equivalent`, `unknown` or `refused`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Different(_) => "not-equivalent",
            Verdict::Unknown(_) => "unknown",
            Verdict::Refused(_) => "refused",
        }
    }
}

/// What `syncscope equiv` may assume beyond the analysis options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EquivOptions {
    /// `--assoc`: `+` and `*` on values are associative and commutative,
    /// `x + 0 == x` and `0 * y == 0` (real arithmetic): an assumption about
    /// floating point the user makes. Reductions in another order become
    /// provable.
    pub assoc: bool,
}

/// Checks that the two versions compute the same thing.
pub fn check_equivalence(a: &Version, b: &Version, options: &Options) -> EquivReport {
    check_equivalence_with(a, b, options, &EquivOptions::default())
}

/// [`check_equivalence`] with what the comparison may assume.
pub fn check_equivalence_with(
    a: &Version,
    b: &Version,
    options: &Options,
    equiv: &EquivOptions,
) -> EquivReport {
    let started = Instant::now();
    let mut report = EquivReport {
        verdict: Verdict::Unknown(String::new()),
        millis: 0,
        launches: 0,
        queries: 0,
        notes: Vec::new(),
    };
    if equiv.assoc {
        report.notes.push(
            "assumed (--assoc): + and * on values are associative and commutative, x + 0 == x and 0 * y == 0 (real arithmetic, not floating point)".into(),
        );
    }
    report.verdict = decide(a, b, options, equiv, &mut report);
    report.millis = started.elapsed().as_millis() as u64;
    report
}

fn decide(
    a: &Version,
    b: &Version,
    options: &Options,
    equiv: &EquivOptions,
    report: &mut EquivReport,
) -> Verdict {
    // Each file is read as `check` reads it (its `syncscope-args` and
    // GPUVerify header lines); the launch sizes either fixes hold for both.
    let (oa, ob) = (
        crate::options::with_file_directives(a.text, options),
        crate::options::with_file_directives(b.text, options),
    );
    let joint = |x: Option<[u32; 3]>, y: Option<[u32; 3]>| match (x, y) {
        (Some(x), Some(y)) if x != y => Err(format!("{x:?} and {y:?}")),
        (x, y) => Ok(x.or(y)),
    };
    let (block_dim, grid_dim) = match (
        joint(oa.block_dim, ob.block_dim),
        joint(oa.grid_dim, ob.grid_dim),
    ) {
        (Ok(b), Ok(g)) => (b, g),
        (Err(e), _) | (_, Err(e)) => {
            return Verdict::Refused(format!(
                "the two versions are checked under different launch sizes ({e})"
            ))
        }
    };
    let fix = |o: Options| Options {
        block_dim,
        grid_dim,
        ..o
    };
    let (oa, ob) = (fix(oa), fix(ob));
    let mut kernels = Vec::new();
    for (v, o) in [(a, &oa), (b, &ob)] {
        match race_free(v, o) {
            Ok(k) => kernels.push(k),
            Err(why) => return Verdict::Refused(why),
        }
    }
    // Parameters named differently: matched by position when the types
    // agree in order (the second version renamed to the first's names and
    // lowered again; renaming keeps it race-free).
    match crate::analysis::params::match_by_position(a.text, a.kernel, b.text, b.kernel) {
        crate::analysis::params::Matched::Same => {}
        crate::analysis::params::Matched::Refused(why) => return Verdict::Refused(why),
        crate::analysis::params::Matched::Renamed(text, pairs) => {
            report.notes.push(format!(
                "parameters matched by position: {}",
                pairs
                    .iter()
                    .map(|(x, y)| format!("{x} ↔ {y}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            match crate::analysis::lower_with_values(&text, &ob, b.kernel) {
                Some(k) => kernels[1] = k,
                None => {
                    return Verdict::Refused(format!(
                        "`{}` with its parameters renamed has no kernel `{}`",
                        b.label, b.kernel
                    ))
                }
            }
        }
    }
    let options = &oa;
    let (ka, kb) = (&kernels[0], &kernels[1]);
    // Inputs are matched by name: the same global arrays and scalar
    // parameters, or the comparison would feed the versions different data.
    let globals = |k: &Kernel| -> std::collections::BTreeSet<String> {
        k.arrays
            .iter()
            .filter(|a| a.space == crate::model::MemorySpace::Global)
            .map(|a| a.name.clone())
            .collect()
    };
    if let Some(a) = [ka, kb]
        .iter()
        .flat_map(|k| &k.arrays)
        .find(|a| a.byte_addressed && a.space == crate::model::MemorySpace::Global)
    {
        return Verdict::Unknown(format!(
            "`{}` is viewed as another element type (byte offsets): not compared",
            a.name
        ));
    }
    let scalars = |k: &Kernel| params(&[k]).into_keys().collect::<Vec<_>>();
    if globals(ka) != globals(kb) || scalars(ka) != scalars(kb) {
        return Verdict::Unknown(format!(
            "the versions' inputs are matched by name, and these differ: global arrays {:?} and {:?}, parameters {:?} and {:?}",
            globals(ka),
            globals(kb),
            scalars(ka),
            scalars(kb)
        ));
    }
    // Cheap first: a concrete difference on a small launch.
    let concrete = match search(ka, kb, options, report) {
        Ok(Some(cex)) => return Verdict::Different(cex),
        Ok(None) => None,
        Err(why) => Some(why),
    };
    // The proof stands on its own (the concrete search only looks for
    // counterexamples); without it the answer is `unknown`.
    let failure = match symbolic::prove(ka, kb, options, equiv.assoc, &mut report.queries) {
        Ok(()) => return Verdict::Equivalent,
        Err(f) => f,
    };
    let mut why = failure.reason;
    // A satisfiable query: replay it with the solver's launch and parameters.
    if let Some(model) = &failure.model {
        match replay_model(ka, kb, model) {
            Ok(Some(cex)) => return Verdict::Different(cex),
            Ok(None) => {
                why.push_str(", which its launch does not confirm on the concrete interpreter")
            }
            Err(e) => why.push_str(&format!(", which could not be replayed ({e})")),
        }
    }
    match concrete {
        None => Verdict::Unknown(why),
        Some(c) => Verdict::Unknown(format!("{why}; no concrete run either ({c})")),
    }
}

/// The version's kernel, lowered with read values, if `check` verifies it.
fn race_free(v: &Version, options: &Options) -> Result<Kernel, String> {
    let file = crate::analyze_source(v.text, options);
    let Some(k) = file.kernels.iter().find(|k| k.name == v.kernel) else {
        return Err(format!("`{}` has no kernel `{}`", v.label, v.kernel));
    };
    if k.status != KernelStatus::Verified {
        return Err(format!(
            "`{}` in `{}` is {} by `syncscope check`; equivalence needs race-free kernels",
            v.kernel,
            v.label,
            k.status.as_str()
        ));
    }
    crate::analysis::lower_with_values(v.text, options, v.kernel)
        .ok_or_else(|| format!("`{}` has no kernel `{}`", v.label, v.kernel))
}

/// The value of a floating-point literal the model holds as an unknown
/// (`2.0f#0`), as the bits of the double it denotes: one constant for every
/// spelling of the same number, the same in both versions.
pub(crate) fn float_literal(v: &crate::model::Var) -> Option<i64> {
    let base = v.name.split('#').next()?;
    let digits = base.trim_end_matches(['f', 'F', 'l', 'L']);
    if !digits.contains(['.', 'e', 'E']) {
        return None;
    }
    digits.parse::<f64>().ok().map(|x| x.to_bits() as i64)
}

/// Scalar parameters the kernels read, with their bounds.
fn params(kernels: &[&Kernel]) -> BTreeMap<String, (i64, i64)> {
    let mut out = BTreeMap::new();
    for k in kernels {
        let exprs = k
            .accesses()
            .into_iter()
            .flat_map(|a| [Some(&a.guard), Some(&a.index), a.value.as_ref()])
            .flatten()
            .chain(&k.assumptions);
        for e in exprs {
            e.for_each_var(&mut |v| {
                if let VarKind::Param { lo, hi } = v.kind {
                    out.insert(v.name.to_string(), (lo, hi));
                }
            })
        }
    }
    out
}

const BLOCKS: [[i64; 3]; 10] = [
    [16, 16, 1],
    [8, 8, 1],
    [4, 4, 1],
    [32, 8, 1],
    [16, 8, 1],
    [32, 1, 1],
    [64, 1, 1],
    [128, 1, 1],
    [256, 1, 1],
    [32, 32, 1],
];
const GRIDS: [[i64; 3]; 4] = [[1, 1, 1], [2, 3, 1], [3, 2, 1], [3, 1, 1]];
const PARAM_VALUES: [i64; 6] = [37, 20, 16, 45, 9, 32];
const MAX_THREADS: i64 = 1 << 15;

/// The concrete differential search: the first launch on which the two
/// versions leave different global memory.
fn search(
    a: &Kernel,
    b: &Kernel,
    options: &Options,
    report: &mut EquivReport,
) -> Result<Option<Counterexample>, String> {
    let params = params(&[a, b]);
    let used = |d: usize, block: bool| {
        let f = |k: &Kernel| {
            if block {
                k.block_dims_used[d]
            } else {
                k.grid_dims_used[d]
            }
        };
        (f(a), f(b))
    };
    let blocks: Vec<[i64; 3]> = match options.block_dim {
        Some(d) => vec![d.map(|x| x as i64)],
        None => BLOCKS.to_vec(),
    };
    let grids: Vec<[i64; 3]> = match options.grid_dim {
        Some(d) => vec![d.map(|x| x as i64)],
        None => GRIDS.to_vec(),
    };
    let mut last_error = None;
    for block in &blocks {
        for grid in &grids {
            // A dimension a version never mentions is launched as 1.
            let fits = (0..3).all(|d| {
                let (ba, bb) = used(d, true);
                let (ga, gb) = used(d, false);
                (block[d] == 1 || (ba && bb)) && (grid[d] == 1 || (ga && gb))
            });
            if !fits || block.iter().chain(grid).product::<i64>() > MAX_THREADS {
                continue;
            }
            for round in 0..3 {
                let values: BTreeMap<String, i64> = params
                    .iter()
                    .enumerate()
                    .map(|(i, (name, (lo, hi)))| {
                        let v = PARAM_VALUES[(round * 2 + i * 3) % PARAM_VALUES.len()];
                        (name.clone(), v.clamp(*lo, *hi))
                    })
                    .collect();
                let launch = concrete::Launch {
                    block: *block,
                    grid: *grid,
                    params: values,
                };
                if !concrete::assumptions_hold(a, &launch)?
                    || !concrete::assumptions_hold(b, &launch)?
                {
                    continue;
                }
                let (wa, wb) = match (concrete::run(a, &launch), concrete::run(b, &launch)) {
                    (Ok(wa), Ok(wb)) => (wa, wb),
                    (Err(e), _) | (_, Err(e)) => {
                        last_error = Some(e);
                        continue;
                    }
                };
                report.launches += 1;
                if let Some(cex) = difference(a, b, &launch, &wa, &wb) {
                    return Ok(Some(cex));
                }
            }
        }
    }
    match (report.launches, last_error) {
        (0, Some(e)) => Err(e),
        (0, None) => Err("no small launch satisfies both versions' preconditions".into()),
        _ => Ok(None),
    }
}

/// Runs both versions with the launch sizes and parameters of a solver's
/// model: the counterexample if they differ there.
fn replay_model(
    a: &Kernel,
    b: &Kernel,
    model: &BTreeMap<String, i64>,
) -> Result<Option<Counterexample>, String> {
    let size = |name: String| model.get(&name).copied().unwrap_or(1);
    let dims =
        |prefix: &str| [0, 1, 2].map(|d| size(format!("{prefix}.{}", crate::model::DIMS[d])));
    let launch = concrete::Launch {
        block: dims("blockDim"),
        grid: dims("gridDim"),
        params: params(&[a, b])
            .into_keys()
            .map(|p| {
                let v = model.get(&p).copied().unwrap_or(0);
                (p, v)
            })
            .collect(),
    };
    let threads = launch
        .block
        .iter()
        .chain(&launch.grid)
        .try_fold(1i64, |n, d| (*d >= 1).then(|| n.saturating_mul(*d)));
    match threads {
        Some(n) if n <= 4 * MAX_THREADS => {}
        _ => {
            return Err(format!(
                "launch {:?} x {:?} too large to run",
                launch.grid, launch.block
            ))
        }
    }
    if !concrete::assumptions_hold(a, &launch)? || !concrete::assumptions_hold(b, &launch)? {
        return Ok(None);
    }
    let (wa, wb) = (concrete::run(a, &launch)?, concrete::run(b, &launch)?);
    Ok(difference(a, b, &launch, &wa, &wb))
}

fn difference(
    a: &Kernel,
    b: &Kernel,
    launch: &concrete::Launch,
    wa: &concrete::Written,
    wb: &concrete::Written,
) -> Option<Counterexample> {
    let keys = wa
        .keys()
        .chain(wb.keys())
        .collect::<std::collections::BTreeSet<_>>();
    for key in keys {
        let (va, vb) = (wa.get(key).copied(), wb.get(key).copied());
        let init = concrete::input(&key.0, key.1);
        if va.unwrap_or(init) == vb.unwrap_or(init) {
            continue;
        }
        let expr = |k: &Kernel, written: Option<i64>| match written {
            None => "not written (the input value stays)".to_string(),
            Some(_) => symbolic::write_text(k, &key.0),
        };
        return Some(Counterexample {
            block_dim: launch.block,
            grid_dim: launch.grid,
            params: launch.params.clone().into_iter().collect(),
            array: key.0.clone(),
            index: key.1,
            value_a: va,
            value_b: vb,
            expr_a: expr(a, va),
            expr_b: expr(b, vb),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Var, VarKind};

    fn unknown(name: &str) -> Var {
        Var::new(
            name,
            VarKind::Unknown {
                scope: crate::model::Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )
    }

    #[test]
    fn float_literals_are_their_value() {
        let two = float_literal(&unknown("2.0f#0"));
        assert_eq!(two, Some(2.0f64.to_bits() as i64));
        assert_eq!(float_literal(&unknown("2.f#3")), two);
        assert_eq!(
            float_literal(&unknown("1e3#0")),
            Some(1000.0f64.to_bits() as i64)
        );
        assert_eq!(float_literal(&unknown("in[i]#0")), None);
        assert_eq!(float_literal(&unknown("sum@exit#0")), None);
    }

    #[test]
    fn the_interpreter_runs_a_block_through_its_barrier() {
        // Each block reverses its slice through shared memory.
        let text = "__global__ void rev(int *out, const int *in) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int s[8];\n\
            int g = blockIdx.x * 8 + threadIdx.x;\n\
            s[threadIdx.x] = in[g];\n\
            __syncthreads();\n\
            out[g] = s[7 - threadIdx.x];\n}\n";
        let k = crate::analysis::lower_with_values(text, &Options::default(), "rev").unwrap();
        let launch = concrete::Launch {
            block: [8, 1, 1],
            grid: [2, 1, 1],
            params: BTreeMap::new(),
        };
        assert!(concrete::assumptions_hold(&k, &launch).unwrap());
        let written = concrete::run(&k, &launch).unwrap();
        assert_eq!(written.len(), 16);
        for g in 0..16i64 {
            let from = (g / 8) * 8 + 7 - g % 8;
            assert_eq!(
                written[&("out".to_string(), g)],
                concrete::input("in", from),
                "{g}"
            );
        }
    }

    #[test]
    fn a_fold_in_another_order_is_not_proved() {
        // The same dot product summed forwards and backwards: equal for
        // integers (the concrete search finds no difference), not for
        // floating point (needs associativity): never "equivalent".
        let fwd = "__global__ void k(float *o, const float *a, int n) {\n\
            int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
            float s = 0.0f;\n\
            for (int k = 0; k < n; ++k) { s += a[i * n + k]; }\n\
            o[i] = s;\n}\n";
        let bwd = fwd.replace(
            "for (int k = 0; k < n; ++k) { s += a[i * n + k]; }",
            "for (int k = n - 1; k >= 0; --k) { s += a[i * n + k]; }",
        );
        let same = fwd.replace("s += a[i * n + k];", "s = a[n * i + k] + s;");
        let v = |t: &'static str| Version {
            label: "k.cu",
            text: t,
            kernel: "k",
        };
        let bwd: &'static str = Box::leak(bwd.into_boxed_str());
        let same: &'static str = Box::leak(same.into_boxed_str());
        let r = check_equivalence(&v(fwd), &v(bwd), &Options::default());
        assert!(matches!(r.verdict, Verdict::Unknown(_)), "{:?}", r.verdict);
        // The same order, spelled differently: proved.
        let r = check_equivalence(&v(fwd), &v(same), &Options::default());
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert!(r.queries > 0);
    }

    #[test]
    fn a_reordered_sum_is_not_proved() {
        // (a + b) + c against a + (b + c): equal for integers, not as
        // uninterpreted operations (floating point is not associative).
        let left = "__global__ void k(float *o, const float *a) {\n\
            int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
            o[i] = (a[3 * i] + a[3 * i + 1]) + a[3 * i + 2];\n}\n";
        let right = left.replace(
            "(a[3 * i] + a[3 * i + 1]) + a[3 * i + 2]",
            "a[3 * i] + (a[3 * i + 1] + a[3 * i + 2])",
        );
        let swapped = left.replace(
            "(a[3 * i] + a[3 * i + 1]) + a[3 * i + 2]",
            "a[3 * i + 2] + (a[3 * i + 1] + a[3 * i])",
        );
        let v = |t: &'static str| Version {
            label: "k.cu",
            text: t,
            kernel: "k",
        };
        let right: &'static str = Box::leak(right.into_boxed_str());
        let swapped: &'static str = Box::leak(swapped.into_boxed_str());
        let r = check_equivalence(&v(left), &v(right), &Options::default());
        assert!(!matches!(r.verdict, Verdict::Equivalent), "{:?}", r.verdict);
        // Commutativity alone is a normalisation: proved.
        let r = check_equivalence(&v(left), &v(swapped), &Options::default());
        assert_eq!(r.verdict, Verdict::Equivalent);
        // With `--assoc` the user assumes real arithmetic: proved, and the
        // report says what was assumed.
        let assoc = EquivOptions { assoc: true };
        let r = check_equivalence_with(&v(left), &v(right), &Options::default(), &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert!(
            r.notes.iter().any(|n| n.contains("--assoc")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn a_fold_and_a_tree_are_sums_under_assoc() {
        // A serial sum of a block against a halving tree: a sum over the
        // block either way, proved only under `--assoc`; a tree that skips
        // its last step loses half of the elements, never proved.
        let serial = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            if (threadIdx.x == 0) {\n\
            int s = 0;\n\
            for (int i = 0; i < 8; ++i) { s += a[blockIdx.x * 8 + i]; }\n\
            o[blockIdx.x] = s; }\n}\n";
        let tree = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int sh[8];\n\
            unsigned int t = threadIdx.x;\n\
            sh[t] = a[blockIdx.x * 8 + t];\n\
            __syncthreads();\n\
            for (unsigned int s = 4; s > 0; s >>= 1) {\n\
            if (t < s) { sh[t] += sh[t + s]; }\n\
            __syncthreads(); }\n\
            if (t == 0) { o[blockIdx.x] = sh[0]; }\n}\n";
        let short = tree.replace("s > 0;", "s > 1;");
        let short: &'static str = Box::leak(short.into_boxed_str());
        let v = |t: &'static str| Version {
            label: "k.cu",
            text: t,
            kernel: "k",
        };
        let assoc = EquivOptions { assoc: true };
        let r = check_equivalence(&v(serial), &v(tree), &Options::default());
        assert!(matches!(r.verdict, Verdict::Unknown(_)), "{:?}", r.verdict);
        let r = check_equivalence_with(&v(serial), &v(tree), &Options::default(), &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent);
        let r = check_equivalence_with(&v(serial), &v(short), &Options::default(), &assoc);
        assert!(!matches!(r.verdict, Verdict::Equivalent), "{:?}", r.verdict);
    }
}
