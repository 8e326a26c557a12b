//! The simulator as the oracle of the engine's claims (issue 26).
//!
//! `generated_kernels`: kernels generated from real idioms
//! (`oracle/generate.rs`), each checked as `syncscope check` checks it (in
//! its project folder, with its host file when it has one); every
//! `verified`, `redundant-barrier` and `benign-race` claim is checked
//! against the generator's truth and against the simulator at many small
//! launches of the launches the kernel can run under, with boundary inputs.
//!
//! The same check of every claim of the corpus, and the replay of every
//! racy corpus kernel's witness, is `corpus_claims` in `tests/corpus.rs`
//! (on the corpus analysis that binary shares).
//!
//! Environment:
//! - `SYNCSCOPE_ORACLE_SEED=S` checks the one generated case of seed S
//!   (every failure prints its seed and this command);
//!   `SYNCSCOPE_ORACLE_FAMILY=NAME` draws every case from one family;
//!   `SYNCSCOPE_ORACLE_VERBOSE=1` prints each case, the engine's verdicts
//!   and the generator's truth.
//! - `SYNCSCOPE_SOAK_CASES=N` checks N generated cases from
//!   `SYNCSCOPE_SOAK_START` (default 1000000) instead of the fixed CI set;
//!   `SYNCSCOPE_SOAK_SECONDS=T` keeps generating new seeds until T seconds
//!   have passed (a soak; best with `--release`).

use std::path::{Path, PathBuf};
use syncscope_tests::oracle::check::{self, Tally};
use syncscope_tests::oracle::generate;
use syncscope_tests::*;

/// Generated cases per CI run (seeds `1..=CI_CASES`): enough for every
/// family several times over, within a minute of a debug build.
const CI_CASES: u64 = 110;

/// Generated cases per family per CI run, beside the mixed ones (seeds
/// `1..=CI_CASES_PER_FAMILY` of each family).
const CI_CASES_PER_FAMILY: u64 = 12;

/// The families whose trap is one draw among several independent ones
/// (an entry or an update of a host loop, a fall-through among the
/// labels, a site the options contradict) get twice the seeds: with 12, a
/// rule undone could go unseen.
fn ci_cases_of(family: generate::Family) -> u64 {
    use generate::Family::*;
    match family {
        LoopRelations | SwitchCases | OptionSites | HostWhileTests => 2 * CI_CASES_PER_FAMILY,
        _ => CI_CASES_PER_FAMILY,
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn temp_root(suite: &str) -> PathBuf {
    let root =
        std::env::temp_dir().join(format!("syncscope-oracle-{}-{suite}", std::process::id()));
    std::fs::create_dir_all(&root).expect("temp folder");
    root
}

#[test]
fn generated_kernels() {
    let root = temp_root("generated");
    let mut tally = Tally::default();
    let start = std::time::Instant::now();
    let family = std::env::var("SYNCSCOPE_ORACLE_FAMILY").ok().map(|name| {
        generate::family_named(&name).unwrap_or_else(|| {
            panic!(
                "no family `{name}`; the families: {:?}",
                generate::FAMILIES.map(|f| f.name())
            )
        })
    });
    let case = |seed| match family {
        Some(f) => generate::generate_in(f, seed),
        None => generate::generate(seed),
    };
    if let Some(seed) = env_u64("SYNCSCOPE_ORACLE_SEED") {
        check::check_case(&case(seed), &root, &mut tally);
    } else if env_u64("SYNCSCOPE_SOAK_CASES").is_some()
        || env_u64("SYNCSCOPE_SOAK_SECONDS").is_some()
    {
        let first = env_u64("SYNCSCOPE_SOAK_START").unwrap_or(1_000_000);
        let cases = env_u64("SYNCSCOPE_SOAK_CASES").unwrap_or(u64::MAX);
        let seconds = env_u64("SYNCSCOPE_SOAK_SECONDS");
        for seed in first..first.saturating_add(cases) {
            if seconds.is_some_and(|s| start.elapsed().as_secs() >= s) {
                break;
            }
            check::check_case(&case(seed), &root, &mut tally);
        }
    } else {
        let mut cases: Vec<(Option<generate::Family>, u64)> =
            (1..=CI_CASES).map(|seed| (family, seed)).collect();
        // And each family's own first seeds: a family drawn rarely by the
        // mixed seeds (the host launches, whose rarer launch ways are the
        // ones that break a claim) still gets its variants tried.
        if family.is_none() {
            for f in generate::FAMILIES {
                cases.extend((1..=ci_cases_of(f)).map(|seed| (Some(f), seed)));
            }
        }
        tally.absorb(check_on_every_core(&cases, &root));
    }
    let _ = std::fs::remove_dir_all(&root);
    println!("{}", tally.summary("generated"));
    println!("{}", tally.per_family());
    if !tally.unsupported.is_empty() {
        println!(
            "unsupported by the simulator:\n{}",
            tally.unsupported_reasons()
        );
    }
    assert!(
        tally.failures.is_empty(),
        "{} false claims:\n{}\n\nthe first ones in full:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .map(|(line, _)| line.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        tally
            .failures
            .iter()
            .take(6)
            .map(|(_, d)| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Checks the cases (`None`: the seed's own family) on every core, each
/// in a folder of its own (the mixed and the per-family seeds share
/// numbers), and tallies them in the cases' order.
fn check_on_every_core(cases: &[(Option<generate::Family>, u64)], root: &Path) -> Tally {
    let tallies = on_every_core(cases, |i, &(family, seed)| {
        let case = match family {
            Some(f) => generate::generate_in(f, seed),
            None => generate::generate(seed),
        };
        let mut tally = Tally::default();
        check::check_case(&case, &root.join(format!("case-{i}")), &mut tally);
        tally
    });
    let mut tally = Tally::default();
    for t in tallies {
        tally.absorb(t);
    }
    tally
}
