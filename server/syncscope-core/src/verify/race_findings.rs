//! The race check's findings: a `RaceSet` (what `races` found) worded
//! for the user. Definite races grouped by the barrier that would separate
//! them, same-value pairs as `benign-race` hints, witnesses that did not
//! replay and undecided groups as `unknown`, and races that depend on what
//! the model does not decide (code it cannot see, locks, `atomicInc`
//! tickets, fences) as `not-verified`, never as a definite race. Must not
//! search for races: every pair here was found and confirmed by `races`.

use super::context::*;
use super::intervals::Level;
use super::races::{RaceHit, RaceSet};
use super::undecided::{pinned_unseen, undecided_origins};
use crate::model::*;
use crate::report::*;
use std::collections::{BTreeMap, BTreeSet};

/// The most characters of an access's text a race's headline shows (the
/// snippets show it whole).
const ACCESS_SHOWN: usize = 24;

impl KernelContext<'_> {
    /// The findings of the race check's `races`, in order: races that
    /// depend on what the model does not decide (taken out of `races`,
    /// which keeps the definite ones), definite races, benign races,
    /// unconfirmed pairs and undecided groups.
    pub(super) fn race_report(&mut self, races: &mut RaceSet) -> Vec<Finding> {
        let k = self.kernel;
        let mut findings = Vec::new();
        // A race or divergence is reported only with a witness that replays
        // with a concrete value for every name it uses: one that depends on
        // a function or name the front end cannot see is a possible race,
        // not verified, naming what it depends on.
        let modelled: Vec<String> = self
            .modelled_last_blocks()
            .iter()
            .map(|lb| lb.counter.clone())
            .collect();
        let pinned = pinned_unseen(k);
        let mut unseen_pairs = Vec::new();
        for (pair, hit) in &races.pairs {
            let (a, b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
            let origins = undecided_origins(a, b, &modelled, &pinned);
            if origins.is_empty() {
                // A definite race: reported below, grouped by the barrier
                // that would separate it.
                continue;
            }
            unseen_pairs.push(*pair);
            let (fences, rest): (Vec<&String>, Vec<&String>) =
                origins.iter().partition(|o| o.starts_with("fence@"));
            let (wraps, rest): (Vec<&String>, Vec<&String>) =
                rest.into_iter().partition(|o| o.starts_with("wrap@"));
            let (locks, unseen): (Vec<&String>, Vec<&String>) =
                rest.into_iter().partition(|o| o.starts_with("lock@"));
            let mut why = Vec::new();
            if !unseen.is_empty() {
                let names: Vec<String> = unseen.iter().map(|o| format!("`{o}`")).collect();
                why.push(format!(
                        "depends on {} (not visible to the analysis: a function without a body or an undeclared name)",
                        names.join(", ")
                    ));
            }
            if !locks.is_empty() {
                let names: Vec<String> = locks
                    .iter()
                    .map(|o| format!("`{}`", o.trim_start_matches("lock@")))
                    .collect();
                why.push(format!(
                        "depends on mutual exclusion by the lock {} (spinning on atomicCAS/atomicExch; locks are not modelled)",
                        names.join(", ")
                    ));
            }
            if !wraps.is_empty() {
                why.push(
                        "depends on the values `atomicInc` returns (it wraps at its bound, so they are distinct tickets only while the bound covers every increment: modelled only in the last-block pattern)"
                            .to_string(),
                    );
            }
            if !fences.is_empty() {
                let names: Vec<String> = fences
                    .iter()
                    .map(|o| format!("`{}`", o.trim_start_matches("fence@")))
                    .collect();
                why.push(format!(
                        "depends on the order `__threadfence()` and the atomic on {} give between blocks (the last-block pattern is not modelled)",
                        names.join(", ")
                    ));
            }
            let mut f = Finding::new(
                FindingKind::NotVerified,
                Some(&k.name),
                a.span,
                format!(
                    "not verified: possible race between `{}` and `{}` (line {}), {}",
                    a.text,
                    b.text,
                    b.span.start.line + 1,
                    why.join("; ")
                ),
            );
            f.related.push(Related {
                span: b.span,
                message: format!("the other access: `{}`", b.text),
            });
            findings.push(f);
        }
        for pair in unseen_pairs {
            races.pairs.remove(&pair);
        }
        let hits: Vec<&RaceHit> = races.pairs.values().collect();
        findings.extend(self.race_findings(&hits));
        for (pair, hit) in &races.benign {
            let (a, b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
            // A same-value pair that depends on what the model does not
            // decide is no finding either way (never a data race).
            if !races.pairs.contains_key(pair)
                && undecided_origins(a, b, &modelled, &pinned).is_empty()
            {
                findings.push(self.benign_race_finding(hit));
            }
        }
        let unconfirmed: BTreeSet<(usize, usize)> = races
            .unconfirmed
            .iter()
            .map(|(p, q, _)| (*p, *q))
            .filter(|pair| !races.pairs.contains_key(pair))
            .collect();
        for (p, q) in &unconfirmed {
            let a = self.accesses[p];
            let b = self.accesses[q];
            // Why it did not replay, where the query tells: bitwise
            // operations put it in 32-bit vectors, whose wrap-around the
            // integer model (and its replay) does not have.
            let why = if races.unconfirmed_in_bitvectors.contains(&(*p, *q)) {
                " (its query has bitwise operations, which the solver decides in 32-bit wrap-around arithmetic; the integer model has no wrap-around; `--bitvector` checks the kernel with it)"
            } else {
                ""
            };
            let mut f = Finding::new(
                    FindingKind::Unknown,
                    Some(&k.name),
                    a.span,
                    format!(
                        "unknown: `{}` and `{}` (line {}) may race, but the solver's witness did not replay on the concrete model{why}",
                        a.text,
                        b.text,
                        b.span.start.line + 1
                    ),
                );
            f.related.push(Related {
                span: b.span,
                message: format!("the other access: `{}`", b.text),
            });
            findings.push(f);
        }
        for (acc, reason) in &races.unknown {
            let a = self.accesses[acc];
            findings.push(Finding::new(
                    FindingKind::Unknown,
                    Some(&k.name),
                    a.span,
                    format!(
                        "unknown: could not decide whether the accesses to `{}` in this barrier interval race ({reason})",
                        k.arrays[a.array].name
                    ),
                ));
        }
        findings
    }

    /// A pair of writes that collide only with equal values: the race
    /// finding's text and witness, as a `benign-race` hint.
    fn benign_race_finding(&self, hit: &RaceHit) -> Finding {
        let mut f = self.race_finding(hit);
        f.kind = FindingKind::BenignRace;
        f.severity = FindingKind::BenignRace.severity();
        let rest = f.message.strip_prefix("data race").unwrap_or(&f.message);
        f.message = format!(
            "benign race{rest}; both write the same value (a data race with --strict-benign)"
        );
        f.headline = f
            .headline
            .map(|h| h.replacen("data race", "benign race", 1));
        f.notes
            .push("both write the same value (a data race with --strict-benign)".into());
        f
    }

    fn race_finding(&self, hit: &RaceHit) -> Finding {
        let k = self.kernel;
        let (mut a, mut b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
        let (mut ta, mut tb) = (&hit.witness.threads[0], &hit.witness.threads[1]);
        let (mut la, mut lb) = (&hit.loop_values[0], &hit.loop_values[1]);
        // The write is the primary location; a read the related one.
        if a.kind == AccessKind::Read && b.kind != AccessKind::Read {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut ta, &mut tb);
            std::mem::swap(&mut la, &mut lb);
        }
        let arr = &k.arrays[a.array].name;
        let fmt_t = |t: &WitnessThread| {
            format!(
                "thread ({},{},{}) of block ({},{},{})",
                t.thread_idx[0],
                t.thread_idx[1],
                t.thread_idx[2],
                t.block_idx[0],
                t.block_idx[1],
                t.block_idx[2]
            )
        };
        let fmt_l = |l: &Vec<(String, i64)>| {
            if l.is_empty() {
                String::new()
            } else {
                let parts: Vec<String> = l.iter().map(|(n, v)| format!("{n} = {v}")).collect();
                format!(" [{}]", parts.join(", "))
            }
        };
        let verb_b = match b.kind {
            AccessKind::Read => "reads it",
            AccessKind::Write => "writes it",
            AccessKind::Atomic => "updates it atomically",
        };
        let place = if k.arrays[a.array].byte_addressed {
            format!("byte {} of `{arr}`", hit.index)
        } else {
            format!("`{arr}[{}]`", hit.index)
        };
        let message = format!(
            "data race on {place}: {} {} `{}` (line {}){} while {} {} with `{}` (line {}){}",
            fmt_t(ta),
            a.kind.verb(),
            a.text,
            a.span.start.line + 1,
            fmt_l(la),
            fmt_t(tb),
            verb_b,
            b.text,
            b.span.start.line + 1,
            fmt_l(lb),
        );
        let mut f = Finding::new(FindingKind::DataRace, Some(&k.name), a.span, message);
        // The cell and the two accesses; the threads and values are the
        // witness's, the lines the snippets'.
        let noun = |kind: AccessKind| match kind {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic update",
        };
        f.headline = Some(format!(
            "data race on {place}: {} `{}` vs {} `{}`",
            noun(a.kind),
            crate::report::elide(&a.text, ACCESS_SHOWN),
            noun(b.kind),
            crate::report::elide(&b.text, ACCESS_SHOWN),
        ));
        f.related.push(Related {
            span: b.span,
            message: format!(
                "the other access: {} {} `{}`",
                fmt_t(tb),
                b.kind.verb(),
                b.text
            ),
        });
        let mut w = hit.witness.clone();
        if a.id != hit.first {
            w.threads.swap(0, 1);
        }
        for (n, v) in la.iter() {
            w.values.push((format!("{n} (thread 1)"), *v));
        }
        for (n, v) in lb.iter() {
            w.values.push((format!("{n} (thread 2)"), *v));
        }
        f.witness = Some(w);
        f
    }

    /// The race findings of `hits`: the races one barrier would separate
    /// become one finding. Two pairs go together when threads of one block
    /// race (a block barrier orders them), their four accesses sit in the
    /// same loops, and every earlier access of the group ends before every
    /// later one starts, so a single point (before the first later access)
    /// lies between both accesses of every pair. Whether a barrier there
    /// does separate them is the quick-fix's check, not a claim made here.
    /// Each finding sits at its first racing access, lists every pair
    /// (`pairs`, and the other access of each in `related`) and carries the
    /// witness of one pair.
    fn race_findings(&mut self, hits: &[&RaceHit]) -> Vec<Finding> {
        let ordered = |h: &RaceHit| {
            let (p, q) = (self.accesses[&h.first], self.accesses[&h.second]);
            if (q.span.start.offset, q.id) < (p.span.start.offset, p.id) {
                (q, p)
            } else {
                (p, q)
            }
        };
        let mut singles = Vec::new();
        let mut groupable: BTreeMap<(Relation, Vec<usize>), Vec<&RaceHit>> = BTreeMap::new();
        for h in hits {
            let (early, late) = ordered(h);
            if early.id != late.id
                && early.span.end.offset <= late.span.start.offset
                && h.relation.level() != Level::Grid
                && early.loops == late.loops
            {
                groupable
                    .entry((h.relation, early.loops.clone()))
                    .or_default()
                    .push(h);
            } else {
                singles.push(*h);
            }
        }
        let mut groups: Vec<Vec<&RaceHit>> = singles.into_iter().map(|h| vec![h]).collect();
        for (_, mut list) in groupable {
            // Interval stabbing: by the later access's start; a pair joins
            // the open group when its earlier access ends before that point.
            list.sort_by_key(|h| {
                let (e, l) = ordered(h);
                (l.span.start.offset, e.span.start.offset)
            });
            let mut point: Option<u32> = None;
            for h in list {
                let (early, late) = ordered(h);
                match (point, groups.last_mut()) {
                    (Some(p), Some(g)) if early.span.end.offset <= p => g.push(h),
                    _ => {
                        point = Some(late.span.start.offset);
                        groups.push(vec![h]);
                    }
                }
            }
        }
        let mut out: Vec<Finding> = groups.iter().map(|g| self.group_finding(g)).collect();
        out.sort_by_key(|f| (f.span.start.offset, f.span.end.offset));
        out
    }

    fn group_finding(&mut self, group: &[&RaceHit]) -> Finding {
        let pair_of = |h: &RaceHit| {
            let (p, q) = (self.accesses[&h.first], self.accesses[&h.second]);
            if (q.span.start.offset, q.id) < (p.span.start.offset, p.id) {
                (q, p)
            } else {
                (p, q)
            }
        };
        let mut pairs: Vec<(&Access, &Access)> = group.iter().map(|h| pair_of(h)).collect();
        pairs.sort_by_key(|(a, b)| (a.span.start.offset, b.span.start.offset, a.id, b.id));
        let first = pairs[0].0;
        let involves = |h: &&&RaceHit| h.first == first.id || h.second == first.id;
        // The witness: a pair of the first racing access, solved to be
        // reproducible (solved again alone if it was found without).
        let resolved;
        let witness_hit: &RaceHit = match group.iter().find(|h| involves(h) && h.reproducible) {
            Some(h) => h,
            None => {
                let h = *group.iter().find(involves).unwrap_or(&group[0]);
                resolved = self.pair_witness(h);
                resolved.as_ref().unwrap_or(h)
            }
        };
        let mut pairs: Vec<(Access, Access)> = pairs
            .iter()
            .map(|(a, b)| ((*a).clone(), (*b).clone()))
            .collect();
        // The witness's pair first (the message's example), then the rest
        // in program order.
        let ids = |a: usize, b: usize| (a.min(b), a.max(b));
        let shown = ids(witness_hit.first, witness_hit.second);
        if let Some(i) = pairs.iter().position(|(a, b)| ids(a.id, b.id) == shown) {
            let p = pairs.remove(i);
            pairs.insert(0, p);
        }
        self.shape_group(witness_hit, &pairs)
    }

    /// The finding of a group: `pairs` (the witness's first), `witness_hit`'s witness.
    fn shape_group(&self, witness_hit: &RaceHit, pairs: &[(Access, Access)]) -> Finding {
        let first = pairs
            .iter()
            .map(|(a, _)| a)
            .min_by_key(|a| (a.span.start.offset, a.id))
            .unwrap_or(&pairs[0].0);
        let mut f = self.race_finding(witness_hit);
        f.pairs = pairs
            .iter()
            .map(|(a, b)| RacingPair {
                first: a.span,
                first_text: a.text.clone(),
                second: b.span,
                second_text: b.text.clone(),
            })
            .collect();
        if pairs.len() == 1 {
            return f;
        }
        let arrays: BTreeSet<&str> = pairs
            .iter()
            .map(|(a, _)| self.kernel.arrays[a.array].name.as_str())
            .collect();
        let names: Vec<String> = arrays.iter().map(|n| format!("`{n}`")).collect();
        let last_line = pairs
            .iter()
            .map(|(_, b)| b.span.start.line + 1)
            .max()
            .unwrap_or(0);
        f.message = format!(
            "data race on {}: {} pairs of accesses race with no barrier between them (lines {}-{}); for example, {}",
            names.join(", "),
            pairs.len(),
            first.span.start.line + 1,
            last_line,
            f.message.trim_start_matches("data race on ")
        );
        // The witness's pair (the single race's headline) becomes a note.
        if let Some(example) = f.headline.take() {
            f.notes.push(format!(
                "for example, {}",
                example.trim_start_matches("data race on ")
            ));
        }
        f.headline = Some(format!(
            "data race on {}: {} racing pairs, no barrier between (lines {}-{})",
            names.join(", "),
            pairs.len(),
            first.span.start.line + 1,
            last_line,
        ));
        f.span = first.span;
        f.related = pairs
            .iter()
            .map(|(other, at)| {
                // At the later access of each pair, naming the earlier one.
                Related {
                    span: at.span,
                    message: format!(
                        "`{}` (line {}) races with `{}` (line {})",
                        at.text,
                        at.span.start.line + 1,
                        other.text,
                        other.span.start.line + 1
                    ),
                }
            })
            .collect();
        f
    }
}
