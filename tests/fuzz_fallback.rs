//! The fuzz target bodies on stable Rust, without a fuzzer: every saved
//! regression input (`tests/fuzz/regressions/<target>/`), every seed, and
//! deterministic mutations of the seeds. `.ci/fuzz` runs the same bodies under
//! libFuzzer for a bounded time.

use std::time::{Duration, Instant};
use syncscope_tests::fuzz::{self, Rng};

/// The saved inputs of `target`: crashes found by fuzzing, kept as tests.
fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz::tests_dir().join("fuzz/regressions").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.file_name() != "README.md")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read a regression input"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Runs `body` on `input`, naming the input when it panics.
fn run(what: &str, input: &[u8], body: fn(&[u8])) -> Duration {
    let start = Instant::now();
    // FUZZ_TRACE=FILE: name each input and keep the current one in FILE, to
    // find the input of a hang.
    if let Some(trace) = std::env::var_os("FUZZ_TRACE") {
        eprintln!("running {what}");
        let _ = std::fs::write(trace, input);
    }
    if let Err(p) = std::panic::catch_unwind(|| body(input)) {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!(
            "{what} failed: {msg}\ninput ({} bytes): {:?}",
            input.len(),
            String::from_utf8_lossy(input)
        );
    }
    start.elapsed()
}

/// Runs `body` on every saved regression, every `seed_stride`-th seed and
/// `mutations` deterministic mutations of the seeds, on every core (the
/// inputs are drawn first, in one order, so the set is the same however the
/// cores share it).
fn drive(target: &str, body: fn(&[u8]), mutations: usize, seed_stride: usize) {
    let saved = regressions(target);
    let seeds = fuzz::seeds(target);
    assert!(seeds.len() >= 20, "{target}: only {} seeds", seeds.len());
    let mut inputs: Vec<(String, Vec<u8>)> = saved
        .iter()
        .map(|(name, input)| (format!("{target} regression {name}"), input.clone()))
        .collect();
    for (i, s) in seeds.iter().enumerate().step_by(seed_stride) {
        inputs.push((format!("{target} seed {i}"), s.clone()));
    }
    let mut rng = Rng(0x5eed ^ target.len() as u64);
    for m in 0..mutations {
        let seed = &seeds[rng.below(seeds.len())];
        inputs.push((
            format!("{target} mutation {m}"),
            fuzz::mutate(seed, &mut rng),
        ));
    }
    let times = syncscope_tests::on_every_core(&inputs, |_, (what, input)| {
        let d = run(what, input, body);
        if d > Duration::from_secs(5) {
            eprintln!("slow: {what} took {d:?}");
        }
        d
    });
    let slowest = times
        .iter()
        .zip(&inputs)
        .max_by_key(|(d, _)| **d)
        .map(|(d, (what, _))| (*d, what.as_str()))
        .unwrap_or_default();
    // No time limit here (it would fail on a loaded machine, not on slow
    // code): the 20 s bound per input is held by `.ci/fuzz` (libFuzzer
    // `-timeout=20`, optimised); the slowest input is printed for reference.
    eprintln!(
        "{target}: {} regressions, {} seeds, {mutations} mutations; slowest {} ({:?})",
        saved.len(),
        seeds.len().div_ceil(seed_stride),
        slowest.1,
        slowest.0
    );
}

#[test]
fn analyze_target_on_seeds_and_mutations() {
    drive("analyze", fuzz::analyze_bytes, 300, 3);
}

#[test]
fn edits_target_on_seeds_and_mutations() {
    drive("edits", fuzz::edit_sequence, 60, 4);
}

#[test]
fn protocol_target_on_seeds_and_mutations() {
    drive("protocol", fuzz::protocol, 40, 2);
}

#[test]
fn mutations_are_deterministic_and_change_the_input() {
    let seed = b"__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }";
    let a = fuzz::mutate(seed, &mut Rng(7));
    let b = fuzz::mutate(seed, &mut Rng(7));
    assert_eq!(a, b);
    let changed = (0..20u64)
        .filter(|i| fuzz::mutate(seed, &mut Rng(*i)) != seed)
        .count();
    assert!(
        changed >= 15,
        "only {changed} of 20 mutations changed the seed"
    );
}

#[test]
fn frames_are_parsed_strictly() {
    let ok = b"Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\nnull";
    assert_eq!(fuzz::parse_frames(ok).len(), 2);
    let stray = std::panic::catch_unwind(|| fuzz::parse_frames(b"hello\r\n\r\n{}"));
    assert!(stray.is_err(), "a non-protocol line must be rejected");
}
