//! The `syncscope` command line. `cli` parses arguments and drives the core;
//! `output` renders reports as human text, JSON or SARIF; `shard` splits a
//! run into the parts of a CI job matrix (`check --shard I/N`).
pub mod cli;
pub mod output;
pub mod shard;
