//! The minimum supported Rust version (`rust-version` in the workspace
//! manifest) is declared by every crate of the workspace and is no older
//! than what any dependency in Cargo.lock declares it needs, so the claim in
//! README.md holds. A toolchain older than it is refused by cargo itself;
//! building with that exact older toolchain is not possible offline, so this
//! is the check CI runs (`cargo metadata`, from the lock file, offline).

use serde_json::Value;
use std::process::Command;

fn version(s: &str) -> Vec<u32> {
    s.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("host triple")
}

fn workspace_rust_version(root: &std::path::Path) -> String {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("workspace manifest");
    let table: toml::Table = manifest.parse().expect("manifest is TOML");
    table["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("[workspace.package] rust-version is set")
        .to_string()
}

#[test]
fn every_crate_declares_the_workspace_rust_version_and_no_dependency_needs_newer() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let msrv = workspace_rust_version(&root);
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version=1", "--locked", "--offline"])
        .args(["--filter-platform", &host_triple()])
        .current_dir(&root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut problems = Vec::new();
    for p in meta["packages"].as_array().expect("packages") {
        let name = p["name"].as_str().unwrap_or("?");
        let declared = p["rust_version"].as_str();
        let is_member = members.contains(&p["id"].as_str().unwrap_or(""));
        match (is_member, declared) {
            (true, Some(v)) if v == msrv => {}
            (true, v) => problems.push(format!(
                "workspace crate {name} declares rust-version {v:?}, not the workspace's {msrv} (add `rust-version.workspace = true`)"
            )),
            (false, Some(v)) if version(v) > version(&msrv) => problems.push(format!(
                "dependency {name} {} needs Rust {v}, newer than the workspace's {msrv}",
                p["version"]
            )),
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert!(
        readme.contains(&format!("Rust {msrv} or newer")),
        "README.md must state the minimum Rust version as `Rust {msrv} or newer`"
    );
}
