//! Analysis options shared by the CLI (flags) and the server (`syncscope.toml`).

use serde::Serialize;

/// Launch sizes for the kernels whose name matches `kernel_glob`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
pub struct LaunchOverride {
    pub kernel_glob: String,
    pub block_dim: Option<[u32; 3]>,
    pub grid_dim: Option<[u32; 3]>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Fixed block size; `None` means symbolic (any size the hardware allows).
    pub block_dim: Option<[u32; 3]>,
    /// Fixed grid size; `None` means symbolic.
    pub grid_dim: Option<[u32; 3]>,
    /// Per-kernel launch sizes; the first matching entry wins over the above.
    pub launch_overrides: Vec<LaunchOverride>,
    /// `-D NAME[=VALUE]` macro definitions (value defaults to `1`).
    pub defines: Vec<(String, String)>,
    /// Legacy lockstep warps (warp size 32) instead of independent scheduling.
    pub warp_sync: bool,
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
    pub kernel_budget_ms: u32,
    /// Report barriers whose removal creates no race.
    pub check_redundant: bool,
    /// Compute verified quick-fixes for findings (costs extra queries).
    pub compute_fixes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            block_dim: None,
            grid_dim: None,
            launch_overrides: Vec::new(),
            defines: Vec::new(),
            warp_sync: false,
            bitvector: false,
            timeout_ms: 10_000,
            rlimit: 50_000_000,
            kernel_budget_ms: 30_000,
            check_redundant: true,
            compute_fixes: false,
        }
    }
}

impl Options {
    /// The launch sizes that apply to `kernel`.
    pub fn launch_for(&self, kernel: &str) -> (Option<[u32; 3]>, Option<[u32; 3]>) {
        for o in &self.launch_overrides {
            if glob_match(&o.kernel_glob, kernel) {
                return (o.block_dim.or(self.block_dim), o.grid_dim.or(self.grid_dim));
            }
        }
        (self.block_dim, self.grid_dim)
    }
}

/// Launch directives written in the file itself, which apply when the caller
/// gave none: `// syncscope-args: --block-dim 32,8 -D TILE=32` anywhere, and
/// GPUVerify-style header comments (`//--blockDim=[32,8] --gridDim=64`).
pub fn with_file_directives(text: &str, base: &Options) -> Options {
    let mut out = base.clone();
    let mut block = None;
    let mut grid = None;
    let mut defines = Vec::new();
    let mut warp_sync = false;
    let header_end = text
        .lines()
        .position(|l| {
            let t = l.trim();
            !(t.is_empty() || t.starts_with("//"))
        })
        .unwrap_or(usize::MAX);
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let args = if let Some(rest) = t
            .split("syncscope-args:")
            .nth(1)
            .filter(|_| t.starts_with("//"))
        {
            rest
        } else if i < header_end && t.starts_with("//") && t.contains("--") {
            t.trim_start_matches('/')
        } else {
            continue;
        };
        let tokens: Vec<&str> = args.split_whitespace().collect();
        let mut j = 0;
        while j < tokens.len() {
            let tok = tokens[j];
            let (key, inline) = match tok.split_once('=') {
                Some((k, v)) if k.starts_with("--") => (k, Some(v)),
                _ => (tok, None),
            };
            let mut value = || {
                inline.map(str::to_string).or_else(|| {
                    j += 1;
                    tokens.get(j).map(|s| s.to_string())
                })
            };
            match key {
                "--block-dim" | "--blockDim" => block = value().and_then(|v| parse_dims(&v).ok()),
                "--grid-dim" | "--gridDim" => grid = value().and_then(|v| parse_dims(&v).ok()),
                "--warp-sync" => warp_sync = true,
                "-D" => {
                    if let Some(v) = value() {
                        defines.push(parse_define(&v));
                    }
                }
                d if d.starts_with("-D") && d.len() > 2 => defines.push(parse_define(&tok[2..])),
                _ => {}
            }
            j += 1;
        }
    }
    if out.block_dim.is_none() {
        out.block_dim = block;
    }
    if out.grid_dim.is_none() {
        out.grid_dim = grid;
    }
    for (n, v) in defines {
        if !out.defines.iter().any(|(m, _)| *m == n) {
            out.defines.push((n, v));
        }
    }
    out.warp_sync |= warp_sync;
    out
}

/// `NAME=VALUE` or `NAME` (value `1`), as `-D` takes it.
pub fn parse_define(d: &str) -> (String, String) {
    match d.split_once('=') {
        Some((n, v)) => (n.trim().to_string(), v.to_string()),
        None => (d.trim().to_string(), "1".to_string()),
    }
}

/// Launch dimensions: `32`, `32,8`, `[32,8]`, `[32, 8, 1]`.
pub fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X[,Y[,Z]], got `{s}`"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: u32 = p
            .parse()
            .map_err(|_| format!("`{p}` is not a positive integer"))?;
        if v == 0 {
            return Err("launch dimensions must be at least 1".into());
        }
        out[i] = v;
    }
    Ok(out)
}

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
