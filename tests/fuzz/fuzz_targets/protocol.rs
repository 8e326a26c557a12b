//! Fuzz target (c) arbitrary bytes into the framing layer and JSON-RPC messages into the server.
//! The body is `syncscope_tests::fuzz::protocol` (`tests/fuzz/harness.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| syncscope_tests::fuzz::protocol(data));
