//! The one parser of directive text written in a source file (layer 0:
//! plain data, uses no other module). The syntax is strict so that a comment
//! is never mistaken for a directive (`docs/diagnostics.md`, "Directives"):
//!
//! * `// syncscope-args: <flags>` on a line of its own, anywhere in the
//!   file. Flags: `--block-dim X[,Y[,Z]]`, `--grid-dim X[,Y[,Z]]` (value
//!   after a space or `=`), `-D NAME[=VALUE]` or `-DNAME[=VALUE]`,
//!   `--warp-sync` (lockstep warps of 32) or `--warp-sync=N` (warps of N),
//!   `--strict-benign` (same-value writes are data races), `--deterministic`
//!   (the final memory must not depend on the order of atomics).
//! * GPUVerify header lines, only before the first line of code: a `//`
//!   comment (a space after `//` or not) whose every word is a flag
//!   (starts with `-`), such as `//--blockDim=[64,1] --gridDim=[2,1]`.
//!   Understood: `--blockDim=`, `--gridDim=`, `--warp-sync=N`,
//!   `--only-intra-group`, `-DNAME[=VALUE]`; other GPUVerify flags are
//!   ignored and listed in [`Directives::ignored`] so the caller can say so.
//!
//! Any other comment is a comment, whatever it contains
//! (`// Build: nvcc -O3 --use_fast_math` is not a directive).

/// What the directives of one file (or one flag list) ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    pub block_dim: Option<[u32; 3]>,
    pub grid_dim: Option<[u32; 3]>,
    /// The 0-based lines the launch sizes were written on: reports say
    /// where a size came from.
    pub block_dim_line: Option<usize>,
    pub grid_dim_line: Option<usize>,
    pub defines: Vec<(String, String)>,
    /// Lockstep warps of this many threads (`--warp-sync[=N]`).
    pub warp_sync: Option<u32>,
    /// Same-value writes are data races (`--strict-benign`).
    pub strict_benign: bool,
    /// The final memory must not depend on the order of atomics
    /// (`--deterministic`).
    pub deterministic: bool,
    /// Only threads of one block are compared (GPUVerify's
    /// `--only-intra-group`: the launch has a single block).
    pub only_intra_group: bool,
    /// Flags written in a directive that Syncscope does not use, with the
    /// 0-based line they are on.
    pub ignored: Vec<(usize, String)>,
    /// Malformed flags (a bad launch size, a missing value), with their line.
    pub errors: Vec<(usize, String)>,
}

/// The marker of a Syncscope directive line.
pub const ARGS_MARKER: &str = "syncscope-args:";

/// Which kind of directive a line is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Syncscope,
    GpuVerify,
}

/// Parses the directives of a whole file.
pub fn parse_file(text: &str) -> Directives {
    let mut out = Directives::default();
    let mut in_header = true;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let comment = t.strip_prefix("//");
        if comment.is_none() && !t.is_empty() {
            in_header = false;
        }
        let Some(comment) = comment else { continue };
        let body = comment.trim_start();
        if let Some(flags) = body.strip_prefix(ARGS_MARKER) {
            parse_flags_into(flags, i, Dialect::Syncscope, &mut out);
        } else if in_header && is_gpuverify_header(comment) {
            parse_flags_into(comment, i, Dialect::GpuVerify, &mut out);
        }
    }
    out
}

/// Parses the flags of one `syncscope-args:` line (the text after the
/// marker): what the tests' harness and the core both read.
pub fn parse_args(flags: &str) -> Directives {
    let mut out = Directives::default();
    parse_flags_into(flags, 0, Dialect::Syncscope, &mut out);
    out
}

/// The text after the marker of a `// syncscope-args:` line, if `line` is one.
pub fn args_line(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("//")?
        .trim_start()
        .strip_prefix(ARGS_MARKER)
}

/// `//--blockDim=[64,1] --gridDim=2`: every word is a flag. One space (or
/// none) after `//`, then `--`.
fn is_gpuverify_header(comment: &str) -> bool {
    let body = comment.strip_prefix(' ').unwrap_or(comment);
    body.starts_with("--") && body.split_whitespace().all(|w| w.starts_with('-'))
}

fn parse_flags_into(flags: &str, line: usize, dialect: Dialect, out: &mut Directives) {
    let tokens: Vec<&str> = flags.split_whitespace().collect();
    let mut j = 0;
    while j < tokens.len() {
        let tok = tokens[j];
        j += 1;
        let (key, inline) = match tok.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v)),
            _ => (tok, None),
        };
        // GPUVerify writes every value after `=`; Syncscope also accepts
        // the next word.
        let takes_next = dialect == Dialect::Syncscope && inline.is_none();
        let value = |j: &mut usize| -> Option<String> {
            if let Some(v) = inline {
                return Some(v.to_string());
            }
            if takes_next {
                let v = tokens.get(*j).map(|s| s.to_string());
                *j += 1;
                return v;
            }
            None
        };
        match (dialect, key) {
            (Dialect::Syncscope, "--block-dim") | (Dialect::GpuVerify, "--blockDim") => {
                match value(&mut j).map(|v| parse_dims(&v)) {
                    Some(Ok(d)) => {
                        out.block_dim = Some(d);
                        out.block_dim_line = Some(line);
                    }
                    Some(Err(e)) => out.errors.push((line, format!("`{key}`: {e}"))),
                    None => out.errors.push((line, format!("`{key}` needs a value"))),
                }
            }
            (Dialect::Syncscope, "--grid-dim") | (Dialect::GpuVerify, "--gridDim") => {
                match value(&mut j).map(|v| parse_dims(&v)) {
                    Some(Ok(d)) => {
                        out.grid_dim = Some(d);
                        out.grid_dim_line = Some(line);
                    }
                    Some(Err(e)) => out.errors.push((line, format!("`{key}`: {e}"))),
                    None => out.errors.push((line, format!("`{key}` needs a value"))),
                }
            }
            (_, "--warp-sync") => match inline {
                None => out.warp_sync = Some(32),
                Some(n) => match n.parse::<u32>() {
                    Ok(n) if n >= 1 && n.is_power_of_two() && n <= 1024 => out.warp_sync = Some(n),
                    _ => out.errors.push((
                        line,
                        format!(
                            "`--warp-sync={n}`: the warp width must be a power of two up to 1024"
                        ),
                    )),
                },
            },
            (Dialect::GpuVerify, "--only-intra-group") => out.only_intra_group = true,
            (Dialect::Syncscope, "--strict-benign") => out.strict_benign = true,
            (Dialect::Syncscope, "--deterministic") => out.deterministic = true,
            (Dialect::Syncscope, "-D") => match value(&mut j) {
                Some(v) => out.defines.push(parse_define(&v)),
                None => out
                    .errors
                    .push((line, "`-D` needs NAME[=VALUE]".to_string())),
            },
            (_, d) if d.starts_with("-D") && d.len() > 2 => {
                out.defines.push(parse_define(&tok[2..]))
            }
            (Dialect::GpuVerify, _) => out.ignored.push((line, tok.to_string())),
            (Dialect::Syncscope, _) => out
                .errors
                .push((line, format!("unknown flag `{tok}` in `syncscope-args`"))),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpuverify_header_with_or_without_space() {
        for text in [
            "//--blockDim=[64,1] --gridDim=[2,1]\n__global__ void k() {}\n",
            "// --blockDim=[64,1] --gridDim=[2,1]\n__global__ void k() {}\n",
        ] {
            let d = parse_file(text);
            assert_eq!(d.block_dim, Some([64, 1, 1]));
            assert_eq!(d.grid_dim, Some([2, 1, 1]));
        }
    }

    #[test]
    fn a_comment_containing_dashes_is_a_comment() {
        let d = parse_file("// Build: nvcc -O3 --use_fast_math -DN=4\n__global__ void k() {}\n");
        assert_eq!(d, Directives::default());
        let d = parse_file("// --warp-sync selects the lockstep model\n");
        assert_eq!(d, Directives::default(), "prose after a flag: a comment");
    }

    #[test]
    fn header_lines_only_before_code() {
        let d = parse_file("int x;\n//--blockDim=[64,1]\n");
        assert_eq!(d.block_dim, None);
        let d = parse_file("int x;\n// syncscope-args: --block-dim 64\n");
        assert_eq!(d.block_dim, Some([64, 1, 1]), "syncscope-args anywhere");
    }

    #[test]
    fn warp_width_is_carried() {
        let d = parse_file("//--blockDim=[64,1] --warp-sync=16\n");
        assert_eq!(d.warp_sync, Some(16));
        assert!(parse_args("--strict-benign").strict_benign);
        assert!(!parse_args("--warp-sync").strict_benign);
        assert!(parse_args("--deterministic").deterministic);
        assert!(!parse_args("--strict-benign").deterministic);
        assert_eq!(parse_args("--warp-sync").warp_sync, Some(32));
        assert_eq!(parse_args("--warp-sync=8").warp_sync, Some(8));
        assert_eq!(parse_args("--warp-sync=12").errors.len(), 1);
    }

    #[test]
    fn other_gpuverify_flags_are_ignored_by_name() {
        let d = parse_file("//--blockDim=64 --no-inline --only-intra-group\n");
        assert!(d.only_intra_group);
        assert_eq!(d.ignored, vec![(0, "--no-inline".to_string())]);
    }

    #[test]
    fn syncscope_args() {
        let d = parse_args(" --block-dim 32,8 --grid-dim=4 -D TILE=16 -DN");
        assert_eq!(d.block_dim, Some([32, 8, 1]));
        assert_eq!(d.grid_dim, Some([4, 1, 1]));
        assert_eq!(
            d.defines,
            vec![
                ("TILE".to_string(), "16".to_string()),
                ("N".to_string(), "1".to_string())
            ]
        );
        assert_eq!(parse_args("--frobnicate").errors.len(), 1);
        assert_eq!(args_line("  // syncscope-args: -D X"), Some(" -D X"));
        assert_eq!(args_line("x = 1; // syncscope-args: -D X"), None);
    }
}
