//! Fuzz target (a) arbitrary bytes → decode → parse → model → verify.
//! The body is `syncscope_tests::fuzz::analyze_bytes` (`tests/fuzz/harness.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| syncscope_tests::fuzz::analyze_bytes(data));
