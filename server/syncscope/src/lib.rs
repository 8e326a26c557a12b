//! The `syncscope` command line. `cli` parses arguments and drives the core;
//! `output` renders reports as human text, JSON or SARIF.
pub mod cli;
pub mod output;
