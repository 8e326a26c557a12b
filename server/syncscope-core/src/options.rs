//! Analysis options shared by the CLI (flags) and the server (`syncscope.toml`).

use crate::directives::Directives;
use serde::Serialize;

/// Launch sizes for the kernels whose name matches `kernel_glob`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
pub struct LaunchOverride {
    pub kernel_glob: String,
    pub block_dim: Option<[u32; 3]>,
    pub grid_dim: Option<[u32; 3]>,
    /// Facts that hold at the launch, as C conditions over the kernel's
    /// parameters, `blockDim` and `gridDim` (`blockDim.y == 1`,
    /// `gridDim.x * 32 == width`); each is assumed like a `__requires`.
    pub requires: Vec<String>,
    /// Where the launch is (`host.cu:42`), for a launch found in the code.
    pub origin: Option<String>,
    /// The template arguments of the launch (`k<16><<<...>>>`), as values.
    pub template_args: Vec<String>,
    /// The struct type each argument of the launch evidently has
    /// (`Scale{2.0f}`, `Scale(2.0f)`, a host local declared `Scale op`), by
    /// position: what binds a kernel's template type parameter to a functor.
    pub arg_types: Vec<Option<String>>,
    /// Where the user wrote these sizes (`syncscope.toml:12`), for a
    /// per-kernel entry of the configuration: reports name it.
    pub from: Option<String>,
    /// Why this launch is a launch of any size with any arguments: the
    /// ways the kernel can run that the host code reading did not
    /// understand (`host.cu:12: passed to `cudaLaunchKernel``).
    pub not_understood: Vec<String>,
    /// Where the launches this one covers are (`host.cu:50`): launches of
    /// the same sizes and template arguments whose facts include all of
    /// this one's, so that every run of theirs is a run of this one and
    /// its verdict is theirs too (they are not checked again).
    pub covers: Vec<String>,
}

/// The default `__CUDA_ARCH__` of the device pass (sm_80).
pub const DEFAULT_CUDA_ARCH: u32 = 800;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Fixed block size; `None` means symbolic (any size the hardware allows).
    pub block_dim: Option<[u32; 3]>,
    /// Fixed grid size; `None` means symbolic.
    pub grid_dim: Option<[u32; 3]>,
    /// Where `block_dim` and `grid_dim` were fixed (`--block-dim`,
    /// `syncscope.toml:3`, `the directive on line 2`): a report names
    /// where every size a verdict rests on came from.
    pub block_dim_from: Option<String>,
    pub grid_dim_from: Option<String>,
    /// Per-kernel launch sizes; the first matching entry wins over the above.
    pub launch_overrides: Vec<LaunchOverride>,
    /// The launch of each kernel found in the project's code (one per kernel
    /// name, exact): used only when the user fixed no size for the kernel
    /// (`--block-dim`, the file's directive, syncscope.toml win).
    pub launch_sites: Vec<LaunchOverride>,
    /// Kernels already known to be `not-verified` before any query (they
    /// use names that only a missing header could define): set by the
    /// project layer, they are not verified at all.
    #[serde(skip)]
    pub unverifiable_kernels: Vec<String>,
    /// Kernels found racy under an earlier launch of the same analysis
    /// (set by the project layer for its later launch passes, not when
    /// fixes are computed): the merged verdict is racy whatever this
    /// launch answers, so their race search stops at its first definite
    /// race here.
    #[serde(skip)]
    pub racy_under_earlier_launch: Vec<String>,
    /// The only kernels to verify (`None`: all): set by the project layer
    /// for its later launch passes, which verify the kernels launched more
    /// ways than the passes before them showed. The others are the same
    /// model as in the first pass, whose result stands; verified again,
    /// a kernel whose search stops at an allowance would spend it again
    /// on the pairs the cache has not answered (a racy kernel in a file
    /// of two passes paid its after-race allowance twice).
    #[serde(skip)]
    pub only_kernels: Option<Vec<String>>,
    /// The directives that begin a branch the preprocessor skipped in the
    /// analysed text, with their spans: set by the analysis when it decides
    /// the conditionals (`frontend::resolve_conditionals`), so that a
    /// kernel whose code was all skipped is `not-verified`, not an empty
    /// `verified`.
    #[serde(skip)]
    pub skipped_branches: Vec<(crate::report::Span, String)>,
    /// `-D NAME[=VALUE]` macro definitions (value defaults to `1`).
    pub defines: Vec<(String, String)>,
    /// Legacy lockstep warps instead of independent scheduling.
    pub warp_sync: bool,
    /// Threads per warp: the unit `__syncwarp()` orders and, with
    /// `warp_sync`, the unit that runs in lockstep (32 on every NVIDIA GPU;
    /// a GPUVerify header may ask for another width with `--warp-sync=N`).
    pub warp_size: u32,
    /// 32-bit bit-vector arithmetic instead of mathematical integers.
    pub bitvector: bool,
    /// Per-query wall-clock safety net in milliseconds (a check still
    /// running then is `unknown`). Not the budget: `rlimit` is, so that a
    /// verdict does not depend on how loaded the machine is; the net is
    /// set far beyond what the rlimit takes on a busy machine.
    pub timeout_ms: u32,
    /// Z3 resource limit per query: the per-query budget (deterministic,
    /// unlike time: the same query gets the same answer on any machine
    /// load); 0 = none. A check that exhausts it is `unknown`.
    pub rlimit: u32,
    /// Wall-clock safety net for verifying one kernel in milliseconds:
    /// once spent, the remaining queries are `unknown` (never `verified`).
    /// Not the budget: the kernel's Z3 resources are (`verify::budget`:
    /// as many units as one query's `rlimit`), the same on any machine;
    /// the net is set far beyond what they take on a busy machine.
    pub kernel_budget_ms: u32,
    /// Report barriers whose removal creates no race.
    pub check_redundant: bool,
    /// Compute verified quick-fixes for findings (costs extra queries).
    pub compute_fixes: bool,
    /// Report threads that write the same value to one location as a
    /// `data-race` instead of a `benign-race` (`--strict-benign`).
    pub strict_benign: bool,
    /// Check that the final memory does not depend on the order of the
    /// atomic operations (`--deterministic`): every kernel when set, else
    /// the kernels whose name matches one of `deterministic_kernels`.
    pub deterministic: bool,
    /// Kernel name globs that must be deterministic (`syncscope.toml`'s
    /// `[[kernel]] deterministic = true`).
    pub deterministic_kernels: Vec<String>,
    /// `__CUDA_ARCH__` of the device pass the code is read as (`800` is
    /// sm_80); `__CUDACC__` and `__SYNCSCOPE__` are always defined.
    pub cuda_arch: u32,
    /// Record the value each read yields in its `Access::value` (the
    /// unknown standing for what was read), so that a written value can be
    /// traced back to the reads it is made of. Only `syncscope equiv` asks
    /// for it; `check`'s models never carry read values.
    pub track_values: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            block_dim: None,
            grid_dim: None,
            block_dim_from: None,
            grid_dim_from: None,
            launch_overrides: Vec::new(),
            launch_sites: Vec::new(),
            unverifiable_kernels: Vec::new(),
            racy_under_earlier_launch: Vec::new(),
            only_kernels: None,
            skipped_branches: Vec::new(),
            defines: Vec::new(),
            warp_sync: false,
            warp_size: 32,
            bitvector: false,
            // The budgets are the units; the wall-clock nets are set well
            // beyond them so that load never decides a verdict. On NVIDIA's
            // samples the kernels that finish spend at most ~18M units in
            // all (a few seconds to ~25 s on an idle core, 5x that under a
            // load of 10 on 2 cores); with 10 s / 30 s nets, 11 of them
            // turned `unknown` under that load (racy or verified idle).
            timeout_ms: 60_000,
            rlimit: 25_000_000,
            kernel_budget_ms: 120_000,
            check_redundant: true,
            compute_fixes: false,
            strict_benign: false,
            deterministic: false,
            deterministic_kernels: Vec::new(),
            cuda_arch: DEFAULT_CUDA_ARCH,
            track_values: false,
        }
    }
}

impl Options {
    /// Whether `kernel`'s final memory must not depend on the order of its
    /// atomic operations.
    pub fn deterministic_for(&self, kernel: &str) -> bool {
        self.deterministic
            || self
                .deterministic_kernels
                .iter()
                .any(|g| glob_match(g, kernel))
    }

    /// The launch sizes that apply to `kernel`: the user's, and where the
    /// user left a size open, the one its launch site fixes (the sites a
    /// pass carries under user sizes are those that agree with them).
    pub fn launch_for(&self, kernel: &str) -> (Option<[u32; 3]>, Option<[u32; 3]>) {
        let site = self.launch_site_types(kernel);
        let site_block = site.and_then(|s| s.block_dim);
        let site_grid = site.and_then(|s| s.grid_dim);
        for o in &self.launch_overrides {
            if glob_match(&o.kernel_glob, kernel) {
                return (
                    o.block_dim.or(self.block_dim).or(site_block),
                    o.grid_dim.or(self.grid_dim).or(site_grid),
                );
            }
        }
        (self.block_dim.or(site_block), self.grid_dim.or(site_grid))
    }

    /// The launch found in the code for `kernel`, when the user fixed no
    /// launch size that applies to it.
    pub fn launch_site(&self, kernel: &str) -> Option<&LaunchOverride> {
        if self.user_launch(kernel).is_some() {
            return None;
        }
        self.launch_site_types(kernel)
    }

    /// The launch sizes (block, grid) the user fixed for `kernel` (flags,
    /// `syncscope.toml`, a directive), if any: they replace the sizes and
    /// facts of its launch sites.
    pub fn user_launch(&self, kernel: &str) -> Option<LaunchSizes> {
        let fixed = self.block_dim.is_some()
            || self.grid_dim.is_some()
            || self
                .launch_overrides
                .iter()
                .any(|o| glob_match(&o.kernel_glob, kernel));
        if !fixed {
            return None;
        }
        for o in &self.launch_overrides {
            if glob_match(&o.kernel_glob, kernel) {
                return Some((o.block_dim.or(self.block_dim), o.grid_dim.or(self.grid_dim)));
            }
        }
        Some((self.block_dim, self.grid_dim))
    }

    /// Where the sizes the user fixed for `kernel` (those of
    /// [`Options::user_launch`]) were written: (block, grid), each `None`
    /// where the size is symbolic or its origin was not recorded.
    pub fn user_launch_from(&self, kernel: &str) -> (Option<String>, Option<String>) {
        let global =
            |size: Option<[u32; 3]>, from: &Option<String>| size.and_then(|_| from.clone());
        for o in &self.launch_overrides {
            if glob_match(&o.kernel_glob, kernel) {
                let own = |size: Option<[u32; 3]>| size.and_then(|_| o.from.clone());
                return (
                    own(o.block_dim).or_else(|| global(self.block_dim, &self.block_dim_from)),
                    own(o.grid_dim).or_else(|| global(self.grid_dim, &self.grid_dim_from)),
                );
            }
        }
        (
            global(self.block_dim, &self.block_dim_from),
            global(self.grid_dim, &self.grid_dim_from),
        )
    }

    /// The sizes the user fixed for `kernel`, each with where it was
    /// written: `blockDim = (64,1,1) (from --block-dim)`, or `None` when
    /// the user fixed none.
    pub fn user_launch_text(&self, kernel: &str) -> Option<String> {
        let (block, grid) = self.user_launch(kernel)?;
        let (block_from, grid_from) = self.user_launch_from(kernel);
        let dims = |name: &str, [x, y, z]: [u32; 3]| format!("{name} = ({x},{y},{z})");
        let from = |f: &Option<String>| {
            f.as_ref()
                .map(|f| format!(" (from {f})"))
                .unwrap_or_default()
        };
        // A size the user left open and the agreeing launch site fixes.
        let site = self.launch_site_types(kernel);
        let from_site = |name: &str, d: Option<[u32; 3]>| {
            let d = d?;
            let at = site
                .and_then(|s| s.origin.as_ref())
                .map(|o| format!(" (from the launch at {o})"))
                .unwrap_or_else(|| " (from its launch site)".to_string());
            Some(format!("{}{at}", dims(name, d)))
        };
        match (block, grid) {
            (None, None) => None,
            (Some(b), None) => Some(match from_site("gridDim", site.and_then(|s| s.grid_dim)) {
                Some(g) => format!("{}{}, {g}", dims("blockDim", b), from(&block_from)),
                None => format!("{}{}", dims("blockDim", b), from(&block_from)),
            }),
            (None, Some(g)) => Some(
                match from_site("blockDim", site.and_then(|s| s.block_dim)) {
                    Some(b) => format!("{b}, {}{}", dims("gridDim", g), from(&grid_from)),
                    None => format!("{}{}", dims("gridDim", g), from(&grid_from)),
                },
            ),
            // Both written in one place: said once.
            (Some(b), Some(g)) if block_from == grid_from => Some(format!(
                "{}, {}{}",
                dims("blockDim", b),
                dims("gridDim", g),
                from(&block_from)
            )),
            (Some(b), Some(g)) => Some(format!(
                "{}{}, {}{}",
                dims("blockDim", b),
                from(&block_from),
                dims("gridDim", g),
                from(&grid_from)
            )),
        }
    }

    /// The launch found in the code for `kernel`, whatever sizes the user
    /// fixed: the types it passes (a functor's struct) are facts of the
    /// code, not launch sizes the user overrides.
    pub fn launch_site_types(&self, kernel: &str) -> Option<&LaunchOverride> {
        self.launch_sites.iter().find(|s| s.kernel_glob == kernel)
    }
}

/// How a size written in the file's directive names its origin, followed
/// by the 1-based line.
const DIRECTIVE_ORIGIN: &str = "the directive on line ";

impl Options {
    /// Moves the lines the file's directive sizes name by `lines`: the file
    /// analysed after `lines` lines of headers (its translation unit), whose
    /// messages are mapped back to the file's own lines.
    pub(crate) fn shift_directive_lines(&mut self, lines: u32) {
        for from in [&mut self.block_dim_from, &mut self.grid_dim_from]
            .into_iter()
            .flatten()
        {
            if let Some(n) = from
                .strip_prefix(DIRECTIVE_ORIGIN)
                .and_then(|n| n.parse::<u32>().ok())
            {
                *from = format!("{DIRECTIVE_ORIGIN}{}", n + lines);
            }
        }
    }
}

/// Launch sizes (block, grid), each symbolic when `None`.
pub type LaunchSizes = (Option<[u32; 3]>, Option<[u32; 3]>);

/// Launch directives written in the file itself, which apply when the caller
/// gave none: `// syncscope-args: --block-dim 32,8 -D TILE=32` anywhere, and
/// GPUVerify header lines (`//--blockDim=[32,8] --gridDim=64`) before the
/// first line of code. The syntax is the one of [`crate::directives`].
pub fn with_file_directives(text: &str, base: &Options) -> Options {
    apply_directives(&crate::directives::parse_file(text), base)
}

/// `base` with what `d` asks for where the caller left it open (launch
/// sizes, macros the caller did not define); lockstep warps are switched on.
pub fn apply_directives(d: &Directives, base: &Options) -> Options {
    let mut out = base.clone();
    if d.only_intra_group && out.grid_dim.is_none() {
        // GPUVerify's `--only-intra-group`: threads of one block only.
        out.grid_dim = Some([1, 1, 1]);
        out.grid_dim_from = Some("`--only-intra-group` in the file's directive".into());
    }
    let directive_line = |line: Option<usize>| line.map(|l| format!("{DIRECTIVE_ORIGIN}{}", l + 1));
    if out.block_dim.is_none() && d.block_dim.is_some() {
        out.block_dim = d.block_dim;
        out.block_dim_from = directive_line(d.block_dim_line);
    }
    if out.grid_dim.is_none() && d.grid_dim.is_some() {
        out.grid_dim = d.grid_dim;
        out.grid_dim_from = directive_line(d.grid_dim_line);
    }
    for (n, v) in &d.defines {
        if !out.defines.iter().any(|(m, _)| m == n) {
            out.defines.push((n.clone(), v.clone()));
        }
    }
    out.strict_benign |= d.strict_benign;
    out.deterministic |= d.deterministic;
    if let Some(width) = d.warp_sync {
        if !base.warp_sync {
            out.warp_size = width;
        }
        out.warp_sync = true;
    }
    out
}

pub use crate::directives::{parse_define, parse_dims};

/// `*` matches any run of characters, `?` one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::glob_match;
    #[test]
    fn file_directives() {
        let o = super::with_file_directives(
            "//pass\n//--blockDim=[32,8] --gridDim=64 -DTILE=32\n__global__ void k() {}\n",
            &super::Options::default(),
        );
        assert_eq!(o.block_dim, Some([32, 8, 1]));
        assert_eq!(o.grid_dim, Some([64, 1, 1]));
        assert_eq!(o.defines, vec![("TILE".to_string(), "32".to_string())]);
        let o = super::with_file_directives(
            "// syncscope-args: --block-dim 16 -D N=4 --warp-sync\n",
            &super::Options {
                block_dim: Some([8, 1, 1]),
                ..Default::default()
            },
        );
        assert_eq!(o.block_dim, Some([8, 1, 1]), "the caller's launch wins");
        assert!(o.warp_sync);
        assert_eq!(o.defines, vec![("N".to_string(), "4".to_string())]);
    }

    #[test]
    fn globs() {
        assert!(glob_match("*", "reduce"));
        assert!(glob_match("red*", "reduce"));
        assert!(glob_match("r?duce", "reduce"));
        assert!(!glob_match("scan*", "reduce"));
        assert!(glob_match("*_v2", "scan_v2"));
    }
}
