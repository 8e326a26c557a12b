//! What is declared once in the core — the finding kinds
//! (`FindingKind::ALL`, `report.rs`) and the settings (`SETTINGS`,
//! `project/settings.rs`) — agrees with every place outside Rust that lists
//! them: `docs/diagnostics.md`, SARIF, `--fail-on`, `--help`, the corpus
//! README, the VS Code extension's `package.json`, the settings tables of
//! `docs/editors.md` and the extension's README, and the defaults the README
//! states. `SYNCSCOPE_BLESS=1` rewrites the rendered settings tables.

use serde_json::Value;
use std::path::{Path, PathBuf};
use syncscope_core::project::settings::{self, Source, SETTINGS};
use syncscope_core::{FindingKind, Options};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn every_finding_kind_has_its_section_in_the_diagnostics_page() {
    let doc = read("docs/diagnostics.md");
    for k in FindingKind::ALL {
        let heading = format!("## {}", k.code());
        assert!(
            doc.lines().any(|l| l.trim_end() == heading),
            "docs/diagnostics.md has no `{heading}` section (the SARIF helpUri anchor)"
        );
    }
}

#[test]
fn every_finding_kind_is_a_sarif_rule_at_its_own_index() {
    let sarif: Value = serde_json::from_str(&syncscope::output::sarif_relative_to(&[], None))
        .expect("SARIF is JSON");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    assert_eq!(rules.len(), FindingKind::ALL.len());
    for k in FindingKind::ALL {
        let rule = &rules[k.index()];
        assert_eq!(rule["id"], k.code());
        assert_eq!(rule["shortDescription"]["text"], k.info().description);
        assert!(rule["helpUri"]
            .as_str()
            .is_some_and(|u| u.ends_with(&format!("diagnostics.md#{}", k.code()))));
    }
}

#[test]
fn fail_on_accepts_and_help_names_every_finding_kind() {
    let help = syncscope::cli::help_text();
    for k in FindingKind::ALL {
        let args = syncscope::cli::parse_check_args(&["--fail-on", k.code()])
            .unwrap_or_else(|e| panic!("--fail-on {}: {e}", k.code()));
        let policy = syncscope::output::FailPolicy {
            deny_warnings: false,
            fail_on: vec![*k],
        };
        let finding =
            syncscope_core::Finding::new(*k, None, Default::default(), "a finding".to_string());
        assert!(policy.fails(&finding), "{k:?}: {args:?}");
        assert!(help.contains(k.code()), "--help does not name {}", k.code());
    }
    let e = syncscope::cli::parse_check_args(&["--fail-on", "data-races"]).unwrap_err();
    for k in FindingKind::ALL {
        assert!(e.contains(k.code()), "the error lists {}: {e}", k.code());
    }
}

#[test]
fn the_corpus_readme_names_every_marker_kind() {
    let readme = read("tests/corpus/README.md");
    for k in syncscope_tests::marked_kinds() {
        assert!(
            readme.contains(&format!("`{}`", k.code())),
            "tests/corpus/README.md does not name the marker `{}`",
            k.code()
        );
    }
}

/// `package.json`'s `contributes.configuration` is the table, setting for
/// setting: name, type, default, description; its other settings are the
/// extension's own (`CLIENT_ONLY_KEYS`), which the server ignores.
#[test]
fn the_vscode_settings_are_the_servers_settings() {
    let manifest: Value = serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let properties = manifest["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("contributes.configuration.properties");
    let mut problems = Vec::new();
    for s in SETTINGS {
        let Some(client) = s.client else { continue };
        let name = format!("syncscope.{client}");
        let Some(p) = properties.get(&name) else {
            problems.push(format!("{name}: missing from package.json"));
            continue;
        };
        if p["type"] != s.ty.schema_type() {
            problems.push(format!(
                "{name}: type {} in package.json, {} in the server",
                p["type"],
                s.ty.schema_type()
            ));
        }
        if let settings::SettingType::Integer { minimum } = s.ty {
            if p["minimum"] != minimum {
                problems.push(format!("{name}: minimum {} ≠ {minimum}", p["minimum"]));
            }
        }
        if p["default"] != (s.default)() {
            problems.push(format!(
                "{name}: default {} in package.json, {} in the server",
                p["default"],
                (s.default)()
            ));
        }
        if p["markdownDescription"] != s.description {
            problems.push(format!(
                "{name}: description differs:\n  package.json: {}\n  server:       {}",
                p["markdownDescription"], s.description
            ));
        }
    }
    for name in properties.keys() {
        let key = name.strip_prefix("syncscope.").unwrap_or(name);
        let first = key.split('.').next().unwrap_or(key);
        let known = settings::lookup(Source::Client, key).is_some()
            || settings::CLIENT_ONLY_KEYS.contains(&first);
        if !known {
            problems.push(format!("{name}: in package.json, not a server setting"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The `check` flag each setting names exists, and `--help` states the
/// numeric defaults the analysis uses.
#[test]
fn every_settings_flag_exists_and_help_states_its_default() {
    let flags = syncscope::cli::flags_of("check");
    let help = syncscope::cli::help_text();
    for s in SETTINGS {
        let Some(flag) = s.cli else { continue };
        assert!(flags.iter().any(|f| f == flag), "no `check {flag}`");
        if let (Some(n), settings::SettingType::Integer { .. }) = ((s.default)().as_u64(), s.ty) {
            assert!(
                help.contains(&format!("Default {n}")),
                "`check --help` does not say {flag} defaults to {n}"
            );
        }
    }
}

/// Replaces the text between `<!-- begin NAME -->` and `<!-- end NAME -->`
/// of `doc` with `table` when blessing; else requires it to be `table`.
fn rendered_block(rel: &str, name: &str, table: &str) -> Result<(), String> {
    let doc = read(rel);
    let begin = format!("<!-- begin {name} (rendered from the settings table; SYNCSCOPE_BLESS=1 cargo test -p syncscope-tests --test registry) -->\n");
    let end = format!("<!-- end {name} -->");
    let (Some(b), Some(e)) = (doc.find(&begin), doc.find(&end)) else {
        return Err(format!("{rel}: no `{}` … `{end}` block", begin.trim()));
    };
    let inside = &doc[b + begin.len()..e];
    if inside == table {
        return Ok(());
    }
    if std::env::var_os("SYNCSCOPE_BLESS").is_some() {
        let updated = format!("{}{table}{}", &doc[..b + begin.len()], &doc[e..]);
        std::fs::write(root().join(rel), updated).unwrap();
        return Ok(());
    }
    Err(format!(
        "{rel}: the `{name}` table is not the settings table; rerun with SYNCSCOPE_BLESS=1\n--- in the document:\n{inside}--- rendered:\n{table}"
    ))
}

#[test]
fn the_settings_tables_in_the_docs_are_rendered_from_the_table() {
    let problems: Vec<String> = [
        rendered_block(
            "docs/editors.md",
            "syncscope.toml keys",
            &settings::markdown_table(Source::File, ""),
        ),
        rendered_block(
            "docs/editors.md",
            "client settings",
            &settings::markdown_table(Source::Client, ""),
        ),
        rendered_block(
            "editors/vscode/README.md",
            "settings",
            &settings::markdown_table(Source::Client, "syncscope."),
        ),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The number a "default" at byte `d` of `line` states: "default 10000",
/// "default: 10000", or before it, "10000 by default", "10000 ms by default".
fn stated_default(line: &str, d: usize) -> Option<u32> {
    let number = |s: &str| -> Option<u32> {
        let digits: String = s.chars().filter(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let after: String = line[d + "default".len()..]
        .trim_start_matches([' ', ':', '='])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '_' || *c == ',')
        .collect();
    if let Some(n) = number(&after) {
        return Some(n);
    }
    let before = line[..d].strip_suffix("by ")?.trim_end();
    let before = before.strip_suffix(" ms").unwrap_or(before);
    let digits: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == '_' || *c == ',')
        .collect();
    number(&digits.chars().rev().collect::<String>())
}

/// Every `timeout-ms`/`kernel-budget-ms` default a user-facing page states
/// in prose is `Options::default`'s.
#[test]
fn the_timeout_defaults_the_docs_state_are_the_codes() {
    let o = Options::default();
    let facts = [
        ("timeout", o.timeout_ms),
        ("kernel-budget", o.kernel_budget_ms),
        ("kernelBudget", o.kernel_budget_ms),
        ("kernel budget", o.kernel_budget_ms),
    ];
    let mut problems = Vec::new();
    for rel in [
        "README.md",
        "docs/diagnostics.md",
        "docs/editors.md",
        "docs/ci.md",
        "editors/vscode/README.md",
    ] {
        let doc = read(rel);
        for (n, line) in doc.lines().enumerate() {
            let lower = line.to_lowercase();
            // Each "default N" belongs to the setting named last before it:
            // "timeout (default 10000) and budget (default 30000)".
            for (d, _) in lower.match_indices("default") {
                let Some(stated) = stated_default(&lower, d) else {
                    continue;
                };
                let named = facts
                    .iter()
                    .filter_map(|(key, value)| {
                        lower[..d]
                            .rfind(&key.to_lowercase())
                            .map(|at| (at, *key, *value))
                    })
                    .max_by_key(|(at, _, _)| *at);
                if let Some((_, key, value)) = named {
                    if stated != value {
                        problems.push(format!(
                            "{rel}:{}: says {key} defaults to {stated}, the code to {value}",
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_stated_default_is_read_before_or_after_the_word() {
    let at = |l: &str| stated_default(l, l.find("default").unwrap());
    assert_eq!(at("timeout (default 10000 ms)"), Some(10000));
    assert_eq!(at("`timeoutms`; 2000 by default)"), Some(2000));
    assert_eq!(at("budget, 10,000 ms by default"), Some(10000));
    assert_eq!(at("the default launch"), None);
}
