//! Fuzz target (b) arbitrary edit sequences: incremental tree and diagnostics equal fresh ones.
//! The body is `syncscope_tests::fuzz::edit_sequence` (`tests/fuzz/harness.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| syncscope_tests::fuzz::edit_sequence(data));
