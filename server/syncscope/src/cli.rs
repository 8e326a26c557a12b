//! `syncscope check` and `syncscope lsp`.
//!
//! Exit status (a contract other tools depend on; also in `--help` and the
//! README): 0 no failing finding; 1 failing findings (errors: races,
//! divergence, syntax errors; with --deny-warnings also redundant barriers,
//! `unknown` and `not-verified`; or the kinds named by --fail-on);
//! 2 usage or I/O error.

use crate::output::{self, FileResult, Format};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use syncscope_core::{FindingKind, Options, Progress, Severity};

/// The exit statuses of `syncscope check`, shown by `--help`.
const EXIT_STATUS: &str = "Exit status of `check`:
  0  no failing finding (every kernel verified, or only findings that do not fail)
  1  a failing finding: a data race, barrier divergence or syntax error; with
     --deny-warnings also a redundant barrier, an `unknown` (solver limit or
     budget) or a `not-verified` kernel; with --fail-on, the kinds it names
  2  usage error, or a file that could not be read";

#[derive(Parser, Debug)]
#[command(
    name = "syncscope",
    version,
    about = "Proves CUDA kernels free of data races, barrier divergence and redundant barriers.",
    after_help = EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check files and folders (recursing into *.cu and *.cuh).
    #[command(after_help = EXIT_STATUS)]
    Check(CheckArgs),
    /// Start the language server on stdio.
    Lsp,
    /// Print the kernel model extracted from a file (for debugging and tests).
    Model {
        path: PathBuf,
        #[arg(short = 'D', value_name = "NAME[=VALUE]")]
        define: Vec<String>,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Fixed block size X[,Y[,Z]] (default: symbolic, any size the hardware allows).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dim)]
    block_dim: Option<[u32; 3]>,
    /// Fixed grid size X[,Y[,Z]] (default: symbolic).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dim)]
    grid_dim: Option<[u32; 3]>,
    /// Define a macro (VALUE defaults to 1).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Exit with status 1 on anything short of a proof too: redundant
    /// barriers, `unknown` and `not-verified` findings.
    #[arg(long)]
    deny_warnings: bool,
    /// Exit with status 1 when a finding of one of these kinds is reported
    /// (comma-separated: data-race, barrier-divergence, redundant-barrier,
    /// unknown, not-verified, syntax-error). Errors always fail.
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = parse_kind)]
    fail_on: Vec<FindingKind>,
    /// Legacy lockstep warps (warp size 32) instead of independent thread scheduling.
    #[arg(long)]
    warp_sync: bool,
    /// 32-bit bit-vector arithmetic (wrap-around) instead of mathematical integers.
    #[arg(long)]
    bitvector: bool,
    /// Per-query solver timeout in milliseconds (a timeout reports `unknown`).
    #[arg(long, default_value_t = 2000)]
    timeout_ms: u32,
    /// Time budget per kernel in milliseconds (over it the kernel is `unknown`).
    #[arg(long, default_value_t = 10_000)]
    kernel_budget_ms: u32,
    /// Do not look for redundant barriers.
    #[arg(long)]
    no_redundant: bool,
    /// Compute verified quick-fixes (listed under `fixes` in JSON output).
    #[arg(long)]
    fixes: bool,
    /// Files and folders to check.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

fn parse_kind(s: &str) -> Result<FindingKind, String> {
    const KINDS: [FindingKind; 6] = [
        FindingKind::DataRace,
        FindingKind::BarrierDivergence,
        FindingKind::RedundantBarrier,
        FindingKind::Unknown,
        FindingKind::NotVerified,
        FindingKind::SyntaxError,
    ];
    KINDS
        .into_iter()
        .find(|k| k.code() == s.trim())
        .ok_or_else(|| {
            let names: Vec<&str> = KINDS.iter().map(|k| k.code()).collect();
            format!("unknown finding kind `{s}` (one of: {})", names.join(", "))
        })
}

fn parse_dim(s: &str) -> Result<[u32; 3], String> {
    syncscope_core::options::parse_dims(s)
}

/// The `--help` text of `syncscope check`.
pub fn help_text() -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.find_subcommand_mut("check")
        .map(|c| c.render_long_help().to_string())
        .unwrap_or_default()
}

/// Parses the flags of `syncscope check` (without the subcommand), as the
/// corpus files' `// syncscope-args:` lines do.
pub fn parse_check_args(flags: &[&str]) -> Result<CheckArgs, String> {
    let mut argv = vec!["syncscope", "check"];
    argv.extend_from_slice(flags);
    argv.push("-");
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Command::Check(a),
        }) => Ok(a),
        Ok(_) => Err("not a check command".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs the CLI with `args` (including the program name); returns the exit status.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => 2,
            };
        }
    };
    match cli.command {
        Command::Check(args) => {
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            let color = output::use_color();
            check(&args, &mut stdout.lock(), &mut stderr.lock(), color)
        }
        Command::Lsp => syncscope_lsp::run_stdio(),
        Command::Model { path, define } => {
            let text = match read_source(&path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            let options = Options {
                defines: define
                    .iter()
                    .map(|d| syncscope_core::options::parse_define(d))
                    .collect(),
                ..Options::default()
            };
            let tree = syncscope_core::parse(&text, None);
            for k in syncscope_core::frontend::lower_file(&text, &tree, &options) {
                print!("{}", syncscope_core::model::render(&k));
            }
            0
        }
    }
}

/// Reads a source file: a clear error for unreadable, binary or non-UTF-8 input.
pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    decode_source(&path.display().to_string(), bytes)
}

/// Decodes the bytes of a source file named `name`: binary (NUL bytes) and
/// non-UTF-8 input are refused with a message naming the file.
pub fn decode_source(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    if bytes.contains(&0) {
        return Err(format!(
            "`{name}` looks like a binary file (it contains NUL bytes)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{name}` is not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

fn collect_files(paths: &[PathBuf], errors: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            while let Some(dir) = stack.pop() {
                let entries = match std::fs::read_dir(&dir) {
                    Ok(e) => e,
                    Err(e) => {
                        errors.push(format!("cannot read folder `{}`: {e}", dir.display()));
                        continue;
                    }
                };
                let mut items: Vec<PathBuf> =
                    entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                items.sort();
                for item in items {
                    if item.is_dir() {
                        stack.push(item);
                    } else if matches!(
                        item.extension().and_then(|e| e.to_str()),
                        Some("cu" | "cuh")
                    ) {
                        out.push(item);
                    }
                }
            }
        } else if p.exists() {
            out.push(p.clone());
        } else {
            errors.push(format!("no such file or folder: `{}`", p.display()));
        }
    }
    out.sort();
    out.dedup();
    out
}

pub fn options_from(args: &CheckArgs) -> Options {
    Options {
        block_dim: args.block_dim,
        grid_dim: args.grid_dim,
        defines: args
            .define
            .iter()
            .map(|d| syncscope_core::options::parse_define(d))
            .collect(),
        warp_sync: args.warp_sync,
        bitvector: args.bitvector,
        timeout_ms: args.timeout_ms.max(1),
        kernel_budget_ms: args.kernel_budget_ms.max(1),
        check_redundant: !args.no_redundant,
        compute_fixes: args.fixes,
        ..Options::default()
    }
}

/// `syncscope check`, writing to the given streams.
pub fn check(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    let options = options_from(args);
    let mut io_errors = Vec::new();
    let files = collect_files(&args.paths, &mut io_errors);
    // A progress line only for a person watching (stderr is a terminal).
    let progress_line = std::io::stderr().is_terminal();
    let results = analyze_files(&files, &options, &mut io_errors, progress_line);
    for e in &io_errors {
        let _ = writeln!(err, "error: {e}");
    }
    let rendered = match args.format {
        Format::Human => output::human(&results, color),
        Format::Json => output::json(&results),
        Format::Sarif => output::sarif(&results),
    };
    let _ = out.write_all(rendered.as_bytes());
    let _ = out.flush();
    let failing = results
        .iter()
        .flat_map(|r| &r.report.findings)
        .any(|f| fails(args, f.kind, f.severity));
    if !io_errors.is_empty() {
        2
    } else if failing {
        1
    } else {
        0
    }
}

/// Whether a finding makes `check` exit with status 1: errors always; with
/// `--deny-warnings` anything short of a proof (never a silent green for
/// `unknown` or `not-verified`); the kinds named by `--fail-on`.
fn fails(args: &CheckArgs, kind: FindingKind, severity: Severity) -> bool {
    severity == Severity::Error || args.deny_warnings || args.fail_on.contains(&kind)
}

/// The progress line on stderr (a terminal): files and kernels verified so
/// far, redrawn in place every 200 ms, erased at the end.
fn print_progress(
    progress: &[Progress],
    finished: &std::sync::atomic::AtomicUsize,
    all_done: &std::sync::atomic::AtomicBool,
) {
    use std::sync::atomic::Ordering::Relaxed;
    let mut shown = false;
    let start = std::time::Instant::now();
    while !all_done.load(Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(200));
        if start.elapsed() < std::time::Duration::from_millis(500) {
            continue; // quick runs show no progress line
        }
        let (done, total) = progress
            .iter()
            .map(Progress::counts)
            .fold((0, 0), |(d, t), (a, b)| (d + a, t + b));
        let line = format!(
            "syncscope: {}/{} files, {done}/{total} kernels verified",
            finished.load(Relaxed),
            progress.len()
        );
        let _ = write!(std::io::stderr(), "\r{line}\x1b[K");
        let _ = std::io::stderr().flush();
        shown = true;
    }
    if shown {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
}

/// Analyses files on all cores (the core also spreads kernels over cores).
pub fn analyze_files(
    files: &[PathBuf],
    options: &Options,
    io_errors: &mut Vec<String>,
    progress_line: bool,
) -> Vec<FileResult> {
    let texts: Vec<(PathBuf, Result<String, String>)> =
        files.iter().map(|f| (f.clone(), read_source(f))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<FileResult>>> =
        texts.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(texts.len())
        .max(1);
    let progress: Vec<Progress> = texts.iter().map(|_| Progress::default()).collect();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let all_done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        if progress_line {
            s.spawn(|| print_progress(&progress, &finished, &all_done));
        }
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((path, text)) = texts.get(i) else {
                        break;
                    };
                    let Ok(text) = text else { continue };
                    let tree = syncscope_core::parse(text, None);
                    let report = syncscope_core::analyze_with_progress(
                        text,
                        &tree,
                        options,
                        &syncscope_core::MemoryCache::default(),
                        None,
                        &progress[i],
                    );
                    finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(FileResult {
                            path: path.clone(),
                            text: text.clone(),
                            report,
                        });
                    }
                })
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
        all_done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    for (_, text) in &texts {
        if let Err(e) = text {
            io_errors.push(e.clone());
        }
    }
    slots
        .into_iter()
        .filter_map(|s| s.into_inner().ok().flatten())
        .collect()
}
