//! `syncscope check` run in a terminal: the progress line is drawn on stderr
//! by its own thread while the check runs. The check once held stderr's lock
//! for its whole run, so the first progress line blocked that thread and the
//! check waited for it forever: every check in a terminal that lasted more
//! than half a second hung. This test runs the binary under `script` (a
//! pseudo-terminal, util-linux) with the progress line drawn at once
//! (`SYNCSCOPE_PROGRESS_AFTER_MS=0`), so that path is always taken.

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;

#[test]
fn a_check_in_a_terminal_draws_progress_and_finishes() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let command = format!(
        "'{}' check '{}'",
        env!("CARGO_BIN_EXE_syncscope"),
        examples.display()
    );
    let out = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env("SYNCSCOPE_PROGRESS_AFTER_MS", "0")
        .env("NO_COLOR", "1")
        .output()
        .expect("`script` (util-linux) runs the check in a pseudo-terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("syncscope: ") && text.contains("kernels verified"),
        "the progress line was drawn: {text}"
    );
    assert!(
        text.contains("checked 4 kernels in 4 files"),
        "the check finished with its summary: {text}"
    );
    // 1: the examples include a racy and a divergent kernel.
    assert_eq!(out.status.code(), Some(1), "{text}");
}
