//! Hover texts: a finding with its witness, or a kernel with its verdict.

use crate::to_proto::finding_counts;
use syncscope_core::{Finding, KernelReport, KernelStatus, Options};

/// Markdown for a finding: kind, message, witness and related locations.
/// `line_of` maps a byte offset to a 1-based line for display.
pub fn finding_markdown(f: &Finding) -> String {
    let mut md = format!("**syncscope {}**: {}", f.kind.code(), f.message);
    if let Some(w) = &f.witness {
        md.push_str("\n\n**Witness:** ");
        md.push_str(&w.describe());
    }
    if let Some(c) = &f.race_condition {
        md.push_str("\n\n**Condition:** ");
        md.push_str(&c.describe());
    }
    // One witness above; the racing accesses listed, capped like the
    // diagnostic's related locations.
    let cap = crate::to_proto::MAX_RELATED;
    for r in f.related.iter().take(cap) {
        md.push_str(&format!(
            "\n\n- line {}: {}",
            r.span.start.line + 1,
            r.message
        ));
    }
    if f.related.len() > cap {
        md.push_str(&format!("\n\n- and {} more", f.related.len() - cap));
    }
    if f.kind == syncscope_core::FindingKind::DataRace && f.pairs.len() > 1 {
        md.push_str(
            "\n\nQuick fix: ask for code actions here (one barrier, checked before it is offered).",
        );
    }
    md
}

/// What a finding's hover adds when no launch of its kernel is
/// understood: why, so that a witness's launch is not taken for one the
/// host code makes.
pub fn finding_launch_note(f: &Finding, kernels: &[KernelReport]) -> String {
    let note = kernels
        .iter()
        .find(|k| f.kernel.as_deref() == Some(k.name.as_str()))
        .and_then(|k| k.launch_note.as_ref());
    match note {
        Some(n) if f.kind != syncscope_core::FindingKind::Note => {
            format!("\n\n**Launch:** {n}")
        }
        _ => String::new(),
    }
}

fn launch_text(options: &Options, k: &KernelReport) -> String {
    // The launch found in the code or the sizes the user fixed (each
    // naming where it came from), when the verdict rests on them.
    if let Some(l) = &k.launch {
        return format!("under its launch: {l}");
    }
    let (block, grid) = options.launch_for(&k.name);
    let d = |v: [u32; 3]| format!("({},{},{})", v[0], v[1], v[2]);
    match (block, grid) {
        (None, None) => "for every launch size".to_string(),
        (Some(b), None) => format!("for blockDim = {} and every grid size", d(b)),
        (None, Some(g)) => format!("for gridDim = {} and every block size", d(g)),
        (Some(b), Some(g)) => format!("for blockDim = {}, gridDim = {}", d(b), d(g)),
    }
}

/// Markdown for a kernel name: its status with counts and cost.
pub fn kernel_markdown(k: &KernelReport, findings: &[Finding], options: &Options) -> String {
    let cost = format!(
        "{} queries ({} reused), {} ms",
        k.queries, k.queries_reused, k.millis
    );
    let counts = finding_counts(&k.name, findings);
    let head = format!("**kernel `{}`**: ", k.name);
    let body = match k.status {
        KernelStatus::Verified => format!("verified race-free {}; {cost}", launch_text(options, k)),
        KernelStatus::Racy => format!("racy: {counts}; {cost}"),
        KernelStatus::Divergent => format!("barrier divergence: {counts}; {cost}"),
        KernelStatus::Unknown => format!("unknown (solver gave up or timed out); {cost}"),
        KernelStatus::NotVerified => {
            format!("not verified (unsupported construct); {cost}")
        }
        KernelStatus::AssertionFailed => {
            format!("a checked assertion can fail (see its finding); {cost}")
        }
    };
    // The assumptions (annotations, launch facts) bound every verdict:
    // say which, and where each came from.
    let assumptions = findings
        .iter()
        .filter(|f| {
            f.kind == syncscope_core::FindingKind::Assumption
                && f.kernel.as_deref() == Some(k.name.as_str())
        })
        .map(|f| format!("\n\n{}", f.message))
        .collect::<String>();
    // The launch assumption the verdict was reached under.
    let launch = match (&k.launch, k.status) {
        (Some(l), s) if s != KernelStatus::Verified => format!("\n\nlaunch assumption: {l}"),
        _ => String::new(),
    };
    // No launch understood: say so, and why.
    let note = match &k.launch_note {
        Some(n) => format!("\n\n**Launch:** {n}"),
        None => String::new(),
    };
    head + &body + &launch + &note + &assumptions
}

#[cfg(test)]
mod launch_tests {
    use super::*;

    #[test]
    fn the_hover_names_the_launch_site_assumption() {
        let mut k = KernelReport {
            name: "matmul".into(),
            span: Default::default(),
            status: KernelStatus::Verified,
            millis: 1,
            queries: 2,
            queries_reused: 0,
            launch: Some("block (16,16,1), grid symbolic (launch at host.cu:21)".into()),
            launch_note: None,
            dims_taken_as_one: Vec::new(),
        };
        let md = kernel_markdown(&k, &[], &Options::default());
        assert!(
            md.contains("verified race-free under its launch: block (16,16,1)"),
            "{md}"
        );
        k.status = KernelStatus::Racy;
        let md = kernel_markdown(&k, &[], &Options::default());
        assert!(md.contains("launch assumption: block (16,16,1)"), "{md}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncscope_core::{FindingKind, Related, Span, Witness, WitnessThread};

    #[test]
    fn witness_lists_threads_dims_and_values() {
        let w = Witness {
            threads: vec![
                WitnessThread {
                    thread_idx: [5, 0, 0],
                    block_idx: [0, 0, 0],
                },
                WitnessThread {
                    thread_idx: [6, 0, 0],
                    block_idx: [0, 0, 0],
                },
            ],
            values: vec![
                ("blockDim.x".into(), 64),
                ("blockDim.y".into(), 1),
                ("blockDim.z".into(), 1),
                ("n".into(), 3),
                ("index[0]".into(), 6),
            ],
        };
        assert_eq!(
            w.describe(),
            "thread (5,0,0) of block (0,0,0) and thread (6,0,0) of block (0,0,0); blockDim = (64,1,1), index = [6], n = 3"
        );
        let mut f = Finding::new(
            FindingKind::DataRace,
            Some("k"),
            Span::default(),
            "data race on `s`".into(),
        );
        f.witness = Some(w);
        f.related.push(Related {
            span: Span::default(),
            message: "read here".into(),
        });
        let md = finding_markdown(&f);
        assert!(md.starts_with("**syncscope data-race**: data race on `s`"));
        assert!(md.contains("thread (6,0,0)"));
        assert!(md.contains("- line 1: read here"));
        assert!(!md.contains("**Condition:**"), "none computed: none said");
        f.race_condition = Some(syncscope_core::RaceCondition::Only {
            condition: "n < 16".into(),
            assumption: "n >= 16".into(),
        });
        let md = finding_markdown(&f);
        assert!(
            md.contains("\n\n**Condition:** races only when `n < 16`"),
            "{md}"
        );
    }

    #[test]
    fn kernel_status_texts() {
        let k = KernelReport {
            name: "shift".into(),
            span: Span::default(),
            status: KernelStatus::Verified,
            millis: 9,
            queries: 14,
            queries_reused: 2,
            launch: None,
            launch_note: None,
            dims_taken_as_one: Vec::new(),
        };
        let md = kernel_markdown(&k, &[], &Options::default());
        assert_eq!(
            md,
            "**kernel `shift`**: verified race-free for every launch size; 14 queries (2 reused), 9 ms"
        );
        let opts = Options {
            block_dim: Some([256, 1, 1]),
            ..Options::default()
        };
        assert!(kernel_markdown(&k, &[], &opts).contains("blockDim = (256,1,1)"));
        let racy = KernelReport {
            status: KernelStatus::Racy,
            ..k
        };
        let f = Finding::new(
            FindingKind::DataRace,
            Some("shift"),
            Span::default(),
            "r".into(),
        );
        assert!(kernel_markdown(&racy, &[f], &opts).contains("racy: 1 race"));
    }
}
