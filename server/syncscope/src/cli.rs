//! `syncscope check`, `lsp`, `equiv`, `model` and `header`.
//!
//! Exit status (a contract other tools depend on; also in `--help` and the
//! README): 0 no failing finding; 1 failing findings (errors: races,
//! divergence, syntax errors; with --deny-warnings also redundant barriers,
//! `unconfirmed` races, `unknown` and `not-verified`; or the kinds named by
//! --fail-on);
//! 2 usage or I/O error.

use crate::output::{self, FileResult, Format};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use syncscope_core::project::config::{self, ConfigFile, DefineValue, Settings, SettingsOrigin};
use syncscope_core::project::SearchPaths;
use syncscope_core::{FindingKind, Options, Progress};

/// The exit statuses of `syncscope check`, shown by `--help`.
const EXIT_STATUS: &str = "Exit status of `check`:
  0  no failing finding (every kernel verified, or only findings that do not fail)
  1  a failing finding: a data race, barrier divergence or syntax error; with
     --deny-warnings also a redundant barrier, an `unconfirmed` race (its
     witness did not run from source), an `unknown` (solver limit or budget)
     or a `not-verified` kernel; with --fail-on, the kinds it names
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
    /// Prove two versions of a kernel equivalent: both leave the same value
    /// in every global location, for all inputs and allowed launches.
    #[command(after_help = EQUIV_EXIT_STATUS)]
    Equiv(EquivArgs),
    /// Print the kernel models `check` verifies for a file (for debugging and
    /// tests): read as `check` reads it (syncscope.toml, directives,
    /// headers, build flags), one model per distinct launch found in the
    /// project.
    Model(ModelArgs),
    /// Print `syncscope.h`, the header that makes the annotations
    /// (`__requires(...)`...) compile to nothing in a real build
    /// (`syncscope header > include/syncscope.h`).
    Header,
}

#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    /// The file whose kernels are printed.
    path: PathBuf,
    #[command(flatten)]
    analysis: AnalysisArgs,
}

/// The exit statuses of `syncscope equiv`, shown by `--help`.
const EQUIV_EXIT_STATUS: &str = "Exit status of `equiv`:
  0  proved equivalent (every query of the proof unsat)
  1  not equivalent (a counterexample replayed on the concrete interpreter),
     or unknown (neither proved nor refuted; never reported as equivalent)
  2  usage error, a file that could not be read, or a version that is not
     verified race-free by `syncscope check`";

#[derive(clap::Args, Debug, Clone)]
pub struct EquivArgs {
    /// The first version: FILE:KERNEL.
    #[arg(value_name = "A.cu:KERNEL")]
    a: String,
    /// The second version: FILE:KERNEL.
    #[arg(value_name = "B.cu:KERNEL")]
    b: String,
    /// Output format (human or json).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Treat `+` and `*` on values as associative and commutative, with
    /// `x + 0 == x` (real arithmetic): an assumption about floating point
    /// you make. Reductions that add in another order become provable.
    #[arg(long)]
    assoc: bool,
}

/// The options of `check` that decide what is analysed and how: launch
/// sizes, macros, headers, build flags, the configuration file, the
/// arithmetic and warp model, the safety nets. `check` and `equiv` share
/// them, so a file is read the same way by both.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Fixed block size X[,Y[,Z]] (default: symbolic, any size the hardware allows).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dim)]
    block_dim: Option<[u32; 3]>,
    /// Fixed grid size X[,Y[,Z]] (default: symbolic).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dim)]
    grid_dim: Option<[u32; 3]>,
    /// Define a macro (VALUE defaults to 1).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Legacy lockstep warps (warp size 32) instead of independent thread scheduling.
    #[arg(long)]
    warp_sync: bool,
    /// 32-bit bit-vector arithmetic (wrap-around) instead of mathematical integers.
    #[arg(long)]
    bitvector: bool,
    /// Per-query wall-clock safety net in milliseconds (a check still running
    /// then reports `unknown`; the per-query budget is Z3's deterministic
    /// resource limit). Default 60000, or `timeout-ms` of syncscope.toml.
    #[arg(long)]
    timeout_ms: Option<u32>,
    /// Wall-clock safety net per kernel in milliseconds (over it the kernel
    /// is `unknown`; the kernel's budget is Z3's deterministic resource
    /// count). Default 120000, or `kernel-budget-ms` of syncscope.toml.
    #[arg(long)]
    kernel_budget_ms: Option<u32>,
    /// Search DIR for included headers (after the includer's own folder).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Use this syncscope.toml instead of the nearest one above each file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Use this compile_commands.json (or the one in this folder) instead of
    /// the nearest one above each file.
    #[arg(long, value_name = "PATH")]
    compile_commands: Option<PathBuf>,
    /// __CUDA_ARCH__ of the device pass, as nvcc defines it (800 for sm_80;
    /// 80 and sm_80 are read the same). Default 800.
    #[arg(long, value_name = "N", value_parser = parse_arch)]
    cuda_arch: Option<u32>,
}

#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    analysis: AnalysisArgs,
    /// Exit with status 1 on anything short of a proof too: redundant
    /// barriers, `unknown` and `not-verified` findings.
    #[arg(long)]
    deny_warnings: bool,
    // Its help names every kind of the core's registry (`fail_on_help`).
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = parse_kind, help = fail_on_help())]
    fail_on: Vec<FindingKind>,
    /// Do not look for redundant barriers.
    #[arg(long)]
    no_redundant: bool,
    /// Report threads writing the same value to one location as a
    /// `data-race` (default: a `benign-race` hint, which fails only with
    /// `--fail-on benign-race`).
    #[arg(long)]
    strict_benign: bool,
    /// Report a `schedule-dependent` warning when two orders of a kernel's
    /// atomic operations end in different final memory (per kernel:
    /// `deterministic = true` in a `[[kernel]]` of syncscope.toml).
    #[arg(long)]
    deterministic: bool,
    /// Compute verified quick-fixes (a diff under each finding; `fixes` in JSON output).
    #[arg(long)]
    fixes: bool,
    /// Human format: print only the findings that fail the run, no summary.
    #[arg(long, short)]
    quiet: bool,
    /// Check only part I of N (1-based, e.g. 2/4) of the files, for a CI job
    /// matrix: each file is in exactly one part, chosen by a stable hash of
    /// its path relative to the working folder. Headers and launch sites are
    /// read from the whole project as usual, so a kernel's verdict does not
    /// depend on the part; the N reports together are the whole run's.
    #[arg(long, value_name = "I/N", value_parser = crate::shard::parse_shard)]
    pub shard: Option<crate::shard::Shard>,
    /// Files and folders to check.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `800`, `80`, `sm_80`, `sm_100`, `90a` → the `__CUDA_ARCH__` value.
fn parse_arch(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let named = t.starts_with("sm_") || t.starts_with("compute_");
    let digits: String = t
        .trim_start_matches("sm_")
        .trim_start_matches("compute_")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let bad = || format!("`{s}` is not an architecture (800, 80 or sm_80)");
    let n: u32 = digits.parse().map_err(|_| bad())?;
    let arch = if named || n < 100 { n * 10 } else { n };
    if (100..=1500).contains(&arch) {
        Ok(arch)
    } else {
        Err(bad())
    }
}

/// The finding kinds' codes, as `--fail-on` accepts them.
fn kind_codes() -> String {
    FindingKind::ALL
        .iter()
        .map(|k| k.code())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--fail-on`'s help: every kind of the core's registry.
fn fail_on_help() -> String {
    format!(
        "Exit with status 1 when a finding of one of these kinds is reported \
         (comma-separated: {}). Errors always fail.",
        kind_codes()
    )
}

fn parse_kind(s: &str) -> Result<FindingKind, String> {
    FindingKind::from_code(s.trim())
        .ok_or_else(|| format!("unknown finding kind `{s}` (one of: {})", kind_codes()))
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

/// The flags (`--long` names and `-X` short ones) a subcommand accepts.
pub fn flags_of(subcommand: &str) -> Vec<String> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let Some(sub) = cmd.find_subcommand(subcommand) else {
        return Vec::new();
    };
    sub.get_arguments()
        .flat_map(|a| {
            let long = a.get_long().map(|l| format!("--{l}"));
            let short = a.get_short().map(|c| format!("-{c}"));
            long.into_iter().chain(short)
        })
        .collect()
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

/// Parses the arguments of `syncscope model` (without the subcommand).
pub fn parse_model_args(args: &[&str]) -> Result<ModelArgs, String> {
    let mut argv = vec!["syncscope", "model"];
    argv.extend_from_slice(args);
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Command::Model(a),
        }) => Ok(a),
        Ok(_) => Err("not a model command".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Parses the arguments of `syncscope equiv` (without the subcommand).
pub fn parse_equiv_args(args: &[&str]) -> Result<EquivArgs, String> {
    let mut argv = vec!["syncscope", "equiv"];
    argv.extend_from_slice(args);
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Command::Equiv(a),
        }) => Ok(a),
        Ok(_) => Err("not an equiv command".into()),
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
            // Unlocked handles: the progress line is drawn on stderr by
            // another thread while `check` runs, so holding stderr's lock
            // here for the whole run deadlocked every check on a terminal
            // that took longer than the progress line's first delay.
            let color = output::use_color();
            check(&args, &mut std::io::stdout(), &mut std::io::stderr(), color)
        }
        Command::Lsp => syncscope_lsp::run_stdio(),
        Command::Equiv(args) => equiv(&args, &mut std::io::stdout()),
        Command::Model(args) => model(&args, &mut std::io::stdout()),
        Command::Header => header(&mut std::io::stdout()),
    }
}

/// `syncscope header`: the annotation header shipped in the binary, so a
/// project can add it without the repository's `include/`.
pub fn header(out: &mut dyn Write) -> i32 {
    match out.write_all(syncscope_core::analysis::assumption::ANNOTATION_HEADER_TEXT.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: could not write the header: {e}");
            2
        }
    }
}

/// `syncscope model`: the kernel models of one file, through the driver
/// (`analysis::project::models`), so that what is printed is what `check`
/// verifies under the same settings.
pub fn model(args: &ModelArgs, out: &mut dyn Write) -> i32 {
    let text = match read_source(&args.path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut configs = Configs {
        explicit: args.analysis.config.clone(),
        loaded: Default::default(),
    };
    let mut errors = Vec::new();
    let config = configs.for_file(&args.path, &mut errors);
    if let Some(e) = errors.first() {
        eprintln!("error: {e}");
        return 2;
    }
    let (options, search) = options_with(
        &args.analysis,
        &cli_settings(&args.analysis),
        Options::default(),
        config.as_ref(),
    );
    let kernels = syncscope_core::analysis::project::models(
        &args.path,
        &text,
        &options,
        &search,
        &syncscope_core::project::Disk,
    );
    for k in &kernels {
        let _ = write!(out, "{}", syncscope_core::model::render(k));
    }
    0
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

/// The command line as a settings layer: it wins over syncscope.toml.
fn cli_settings(args: &AnalysisArgs) -> Settings {
    Settings {
        block_dim: args.block_dim.map(|d| d.to_vec()),
        grid_dim: args.grid_dim.map(|d| d.to_vec()),
        defines: (!args.define.is_empty()).then(|| {
            args.define
                .iter()
                .map(|d| {
                    let (n, v) = syncscope_core::options::parse_define(d);
                    (n, DefineValue::Str(v))
                })
                .collect()
        }),
        warp_sync: args.warp_sync.then_some(true),
        bitvector: args.bitvector.then_some(true),
        timeout_ms: args.timeout_ms.map(|t| t.max(1)),
        kernel_budget_ms: args.kernel_budget_ms.map(|t| t.max(1)),
        cuda_arch: args.cuda_arch,
        origin: SettingsOrigin::CommandLine,
        ..Settings::default()
    }
}

/// The options and search paths for files under the configuration `config`
/// (none: the command line alone): `base` with syncscope.toml's settings
/// and then the command line's (`cli`) layered over it.
fn options_with(
    args: &AnalysisArgs,
    cli: &Settings,
    base: Options,
    config: Option<&ConfigFile>,
) -> (Options, SearchPaths) {
    let empty = Settings::default();
    let file = config.map(|c| &c.settings).unwrap_or(&empty);
    let options = syncscope_core::project::config::layer_options(&[file, cli], base);
    let mut include_dirs = args.include.clone();
    include_dirs.extend(config.map(ConfigFile::include_dirs).unwrap_or_default());
    let search = SearchPaths {
        include_dirs,
        compile_commands: args
            .compile_commands
            .clone()
            .or_else(|| config.and_then(ConfigFile::compile_commands)),
        context: Vec::new(),
    };
    (options, search)
}

/// The options and search paths of `check` for files under the
/// configuration `config` (none: the command line alone).
pub fn options_from(args: &CheckArgs, config: Option<&ConfigFile>) -> (Options, SearchPaths) {
    let base = Options {
        check_redundant: !args.no_redundant,
        compute_fixes: args.fixes,
        ..Options::default()
    };
    let cli = Settings {
        strict_benign: args.strict_benign.then_some(true),
        deterministic: args.deterministic.then_some(true),
        ..cli_settings(&args.analysis)
    };
    options_with(&args.analysis, &cli, base, config)
}

/// The configuration of each file: `--config`, else the nearest
/// syncscope.toml above the file (each file read once).
struct Configs {
    explicit: Option<PathBuf>,
    loaded: std::collections::HashMap<PathBuf, Option<ConfigFile>>,
}

impl Configs {
    fn for_file(&mut self, file: &Path, errors: &mut Vec<String>) -> Option<ConfigFile> {
        let path = match &self.explicit {
            Some(p) => p.clone(),
            None => {
                let abs = syncscope_core::project::compile_commands::normalize(file);
                config::find_upwards(abs.parent()?)?
            }
        };
        self.loaded
            .entry(path.clone())
            .or_insert_with(|| match ConfigFile::load(&path) {
                Ok(c) => Some(c),
                Err(e) => {
                    errors.push(e);
                    None
                }
            })
            .clone()
    }
}

/// A file to check, with its options and header search paths.
pub type Job = (PathBuf, Options, SearchPaths);

/// The analyses `syncscope check` reports, and the I/O and configuration
/// errors met: each file with the syncscope.toml above it (or `--config`).
pub fn results(args: &CheckArgs) -> (Vec<FileResult>, Vec<String>) {
    let mut io_errors = Vec::new();
    let mut files = collect_files(&args.paths, &mut io_errors);
    // The part is chosen among the files only: a missing path is an error
    // in every part, and each file is then analysed exactly as in a whole
    // run (its headers and the project's launch sites are read from disk,
    // whichever part they fall in).
    if let Some(shard) = args.shard {
        let cwd = std::env::current_dir().unwrap_or_default();
        files = shard.select(files, &cwd);
    }
    let mut configs = Configs {
        explicit: args.analysis.config.clone(),
        loaded: Default::default(),
    };
    let jobs: Vec<Job> = files
        .iter()
        .map(|f| {
            let config = configs.for_file(f, &mut io_errors);
            let (options, search) = options_from(args, config.as_ref());
            (f.clone(), options, search)
        })
        .collect();
    // A progress line only for a person watching (stderr is a terminal).
    let progress_line = std::io::stderr().is_terminal();
    let results = analyze_files(&jobs, &mut io_errors, progress_line);
    (results, io_errors)
}

impl CheckArgs {
    /// Which findings fail the run (`--deny-warnings`, `--fail-on`).
    pub fn fail_policy(&self) -> output::FailPolicy {
        output::FailPolicy {
            deny_warnings: self.deny_warnings,
            fail_on: self.fail_on.clone(),
        }
    }
}

/// `syncscope check`, writing to the given streams.
pub fn check(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    let (results, io_errors) = results(args);
    for e in &io_errors {
        let _ = writeln!(err, "error: {e}");
    }
    let policy = args.fail_policy();
    let rendered = match args.format {
        Format::Human => output::human_with(
            &results,
            output::HumanStyle {
                color,
                quiet: args.quiet,
                policy: policy.clone(),
                shard: args.shard,
            },
        ),
        Format::Json => output::json(&results),
        Format::Sarif => output::sarif(&results),
    };
    let _ = out.write_all(rendered.as_bytes());
    let _ = out.flush();
    exit_status(&results, &io_errors, &policy)
}

/// The exit status of a `check` run: 2 when a path could not be read, 1
/// when a finding fails the run under `policy`, else 0.
pub fn exit_status(
    results: &[FileResult],
    io_errors: &[String],
    policy: &output::FailPolicy,
) -> i32 {
    let failing = results
        .iter()
        .flat_map(|r| &r.report.findings)
        .any(|f| policy.fails(f));
    if !io_errors.is_empty() {
        2
    } else if failing {
        1
    } else {
        0
    }
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
    // Quick runs show no progress line. The delay can be set (in ms) with
    // SYNCSCOPE_PROGRESS_AFTER_MS: 0 draws the line at once, which is how
    // the test of the terminal path makes sure it is drawn.
    let after = std::env::var("SYNCSCOPE_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(
            std::time::Duration::from_millis(500),
            std::time::Duration::from_millis,
        );
    loop {
        if start.elapsed() < after {
            if all_done.load(Relaxed) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            continue;
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
        if all_done.load(Relaxed) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    if shown {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
}

/// Analyses files on the core's worker pool (the core also spreads the
/// kernels of a file over cores), each with its own options and header
/// search paths.
pub fn analyze_files(
    jobs: &[Job],
    io_errors: &mut Vec<String>,
    progress_line: bool,
) -> Vec<FileResult> {
    // One thread at work per core: the files run in parallel and each
    // spreads its kernels over the cores, and more of them at once than
    // cores is only more solver memory, and kernels waiting for a core
    // (see `limit_threads_at_work`).
    syncscope_core::limit_threads_at_work(
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    syncscope_core::keep_little_freed_memory();
    let texts: Vec<Result<String, String>> = jobs.iter().map(|(f, _, _)| read_source(f)).collect();
    let items: Vec<(&Job, &Result<String, String>)> = jobs.iter().zip(&texts).collect();
    let progress: Vec<Progress> = texts.iter().map(|_| Progress::default()).collect();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let all_done = std::sync::atomic::AtomicBool::new(false);
    let indices: Vec<usize> = (0..items.len()).collect();
    let results = std::thread::scope(|s| {
        if progress_line {
            s.spawn(|| print_progress(&progress, &finished, &all_done));
        }
        let results = syncscope_core::parallel_map(&indices, |&i| {
            let ((path, options, search), text) = items[i];
            let text = text.as_ref().ok()?;
            let analysis = syncscope_core::analysis::project::analyze(
                path,
                text,
                None,
                options,
                search,
                &syncscope_core::project::Disk,
                &syncscope_core::MemoryCache::default(),
                None,
                Some(&progress[i]),
            );
            finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Some(FileResult {
                path: path.clone(),
                text: text.clone(),
                report: analysis.report,
                cuda_arch: analysis.options.cuda_arch,
            })
        });
        all_done.store(true, std::sync::atomic::Ordering::Relaxed);
        results
    });
    for text in &texts {
        if let Err(e) = text {
            io_errors.push(e.clone());
        }
    }
    results.into_iter().flatten().collect()
}

/// `syncscope equiv`: see `EQUIV_EXIT_STATUS`. Each file is read as
/// `check` reads it: its syncscope.toml (or `--config`) under the command
/// line, its headers, its build's flags and the launches in its project.
pub fn equiv(args: &EquivArgs, out: &mut dyn Write) -> i32 {
    let split = |s: &str| -> Result<(PathBuf, String), String> {
        match s.rsplit_once(':') {
            Some((p, k)) if !p.is_empty() && !k.is_empty() => Ok((PathBuf::from(p), k.to_string())),
            _ => Err(format!("`{s}`: expected FILE:KERNEL")),
        }
    };
    let mut configs = Configs {
        explicit: args.analysis.config.clone(),
        loaded: Default::default(),
    };
    struct Read {
        label: String,
        path: PathBuf,
        text: String,
        kernel: String,
        options: Options,
        search: SearchPaths,
    }
    let mut versions = Vec::new();
    for s in [&args.a, &args.b] {
        let mut errors = Vec::new();
        let read = split(s).and_then(|(path, kernel)| {
            let text = read_source(&path)?;
            let config = configs.for_file(&path, &mut errors);
            let (options, search) = options_with(
                &args.analysis,
                &cli_settings(&args.analysis),
                Options::default(),
                config.as_ref(),
            );
            Ok(Read {
                label: path.display().to_string(),
                path,
                text,
                kernel,
                options,
                search,
            })
        });
        match (read, errors.into_iter().next()) {
            (Ok(v), None) => versions.push(v),
            (Err(e), _) | (_, Some(e)) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    fn version(v: &Read) -> syncscope_core::equiv::Version<'_> {
        syncscope_core::equiv::Version {
            label: &v.label,
            path: Some(&v.path),
            text: &v.text,
            kernel: &v.kernel,
            options: &v.options,
            search: &v.search,
        }
    }
    let equiv = syncscope_core::equiv::EquivOptions { assoc: args.assoc };
    let report = syncscope_core::equiv::check_equivalence_with(
        &version(&versions[0]),
        &version(&versions[1]),
        &syncscope_core::project::Disk,
        &equiv,
    );
    let _ = match args.format {
        Format::Json => writeln!(out, "{}", output::equiv_json(&report, &args.a, &args.b)),
        _ => write!(out, "{}", output::equiv_human(&report, &args.a, &args.b)),
    };
    use syncscope_core::equiv::Verdict;
    match report.verdict {
        Verdict::Equivalent => 0,
        Verdict::Different(_) | Verdict::Unknown(_) => 1,
        Verdict::Refused(_) => 2,
        // Its own status: never read as plain equivalence (0) nor as a
        // plain difference.
        Verdict::Conditional { .. } => 3,
    }
}
