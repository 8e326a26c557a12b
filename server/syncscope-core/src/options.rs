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
    /// Per-query Z3 timeout in milliseconds; a timeout yields `unknown`.
    pub timeout_ms: u32,
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
            timeout_ms: 2000,
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
    fn globs() {
        assert!(glob_match("*", "reduce"));
        assert!(glob_match("red*", "reduce"));
        assert!(glob_match("r?duce", "reduce"));
        assert!(!glob_match("scan*", "reduce"));
        assert!(glob_match("*_v2", "scan_v2"));
    }
}
