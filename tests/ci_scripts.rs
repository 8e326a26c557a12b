//! The test command's scripts install nothing unless asked (`.ci/install-policy.sh`):
//! on a machine that lacks a prerequisite they print the command that
//! installs it and stop; under `CI=true` or with `SYNCSCOPE_INSTALL=1` they
//! run the installer. Each script runs here with a `PATH` of stand-ins: the
//! tools it needs, none of the prerequisites, and an `apt-get`, `npm`,
//! `cargo` and `id` that only record how they were called, so nothing is
//! installed or downloaded.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The folder holding `tool` on this machine's `PATH`.
fn real(tool: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").expect("PATH"))
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{tool} is not on PATH"))
}

/// A folder to use as the whole `PATH`: links to the ordinary tools the
/// scripts use, and stand-ins that append their arguments to `calls.log`.
struct FakeMachine {
    dir: PathBuf,
}

impl FakeMachine {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "syncscope-ci-scripts-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for tool in [
            "bash", "env", "grep", "ls", "head", "dirname", "uname", "mkdir",
        ] {
            std::os::unix::fs::symlink(real(tool), dir.join(tool)).unwrap();
        }
        let m = FakeMachine { dir };
        // Root, so that only the policy decides whether apt-get runs.
        m.stub("id", "echo 0");
        m.stub(
            "apt-get",
            "echo \"apt-get $*\" >> \"$(dirname \"$0\")/calls.log\"",
        );
        m
    }

    fn stub(&self, name: &str, body: &str) {
        let path = self.dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.dir.join("calls.log")).unwrap_or_default()
    }

    /// `bash SCRIPT` from the repository root with only `vars` set.
    fn run(&self, script: &str, vars: &[(&str, &str)]) -> Output {
        let mut c = Command::new(self.dir.join("bash"));
        c.arg(script)
            .current_dir(repo())
            .env_clear()
            .env("PATH", &self.dir)
            .env("HOME", &self.dir);
        for (k, v) in vars {
            c.env(k, v);
        }
        c.output().expect("run bash")
    }
}

impl Drop for FakeMachine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn missing_packages_are_named_with_their_install_command_and_nothing_is_installed() {
    let m = FakeMachine::new("ask");
    let out = m.run(".ci/prerequisites", &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: missing prerequisites: libz3-dev neovim npm build-essential cpp"),
        "{err}"
    );
    assert!(
        err.contains(
            "apt-get update && apt-get install -y libz3-dev neovim npm build-essential cpp"
        ),
        "{err}"
    );
    assert!(err.contains("SYNCSCOPE_INSTALL=1"), "{err}");
    assert_eq!(m.calls(), "", "apt-get ran without being asked");
}

#[test]
fn ci_and_an_explicit_request_install_with_apt_get_then_check_again() {
    for var in [("CI", "true"), ("SYNCSCOPE_INSTALL", "1")] {
        let m = FakeMachine::new(var.0);
        let out = m.run(".ci/prerequisites", &[var]);
        let err = stderr(&out);
        assert_eq!(
            m.calls(),
            "apt-get update -qq\napt-get install -y -qq libz3-dev neovim npm build-essential cpp\n",
            "{var:?}"
        );
        // The stand-in installed nothing, which the second check reports.
        assert_eq!(out.status.code(), Some(1), "{var:?}: {err}");
        assert!(
            err.contains("error: missing prerequisites"),
            "{var:?}: {err}"
        );
    }
}

#[test]
fn no_install_wins_over_ci() {
    let m = FakeMachine::new("noinstall");
    let out = m.run(
        ".ci/prerequisites",
        &[("CI", "true"), ("SYNCSCOPE_NO_INSTALL", "1")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(m.calls(), "");
}

#[test]
fn an_old_node_is_reported_with_the_npm_command_unless_asked() {
    let m = FakeMachine::new("node");
    m.stub("node", "echo 18");
    m.stub("npm", "echo \"npm $*\" >> \"$(dirname \"$0\")/calls.log\"");
    let out = m.run(".ci/node-for-vsce", &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("needs Node.js 20 or newer"), "{err}");
    assert!(err.contains("npm install --no-save --prefix"), "{err}");
    assert_eq!(m.calls(), "", "npm ran without being asked");

    let out = m.run(".ci/node-for-vsce", &[("CI", "true")]);
    assert!(
        m.calls().starts_with("npm install --no-save"),
        "{}\n{}",
        m.calls(),
        stderr(&out)
    );
}

#[test]
fn fuzzing_without_cargo_fuzz_prints_the_install_command_unless_asked() {
    let m = FakeMachine::new("fuzz");
    // A cargo without the fuzz subcommand that records what it is asked.
    m.stub(
        "cargo",
        "echo \"cargo $*\" >> \"$(dirname \"$0\")/calls.log\"; [ \"$1\" != fuzz ] || exit 101",
    );
    let out = m.run(".ci/fuzz", &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cargo install cargo-fuzz --locked --version 0.13.2"),
        "{err}"
    );
    assert_eq!(m.calls(), "cargo fuzz --version\n");
}
