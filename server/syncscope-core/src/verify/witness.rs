//! Witnesses: the concrete launch, thread identities, parameters and loop
//! values of a satisfying model, in the typed form every renderer uses.
//! Must not decide anything: it only reads models.

use super::engine::*;
use super::intervals::Instance;
use super::replay::Interpreter;
use crate::model::*;
use crate::report::*;

impl<'k> KernelVerifier<'k> {
    pub(super) fn loop_values(
        &self,
        access: usize,
        inst: &Instance,
        t: u8,
        rel: Relation,
        lookup: &dyn Fn(&Var) -> Option<i64>,
    ) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for lid in &self.accesses[&access].loops {
            let Some(l) = self.loops.get(lid) else {
                continue;
            };
            for (name, e) in &l.display {
                let x = self.instantiate(e, t, rel, &inst.subst, false);
                let v = Interpreter {
                    lookup,
                    bitvector: self.env.bitvector,
                    only: &[],
                    max_steps: 1,
                    skip: &[],
                }
                .eval_with(&x);
                if let Some(v) = v {
                    out.push((name.clone(), v));
                }
            }
        }
        out
    }

    pub(super) fn witness(&self, values: &[(String, i64)], rel: Relation, index: i64) -> Witness {
        let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        let mut threads = Vec::new();
        for t in [1u8, 2] {
            let mut tid = [0i64; 3];
            let mut bid = [0i64; 3];
            for d in 0..3 {
                tid[d] = get(&format!("threadIdx.{}#{t}", DIMS[d])).unwrap_or(0);
                bid[d] = if rel.cross_block() {
                    get(&format!("blockIdx.{}#{t}", DIMS[d]))
                } else {
                    get(&format!("blockIdx.{}", DIMS[d]))
                }
                .unwrap_or(0);
            }
            threads.push(WitnessThread {
                thread_idx: tid,
                block_idx: bid,
            });
        }
        let mut out = Vec::new();
        for d in 0..3u8 {
            let name = format!("blockDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::BlockDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        for d in 0..3u8 {
            let name = format!("gridDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::GridDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        let mut params: Vec<String> = Vec::new();
        let mut collect = |e: &Expr| {
            e.for_each_var(&mut |v| {
                if matches!(v.kind, VarKind::Param { .. }) && !params.iter().any(|p| **p == *v.name)
                {
                    params.push(v.name.to_string());
                }
            })
        };
        for a in self.accesses.values() {
            collect(&a.index);
            collect(&a.guard);
        }
        params.sort();
        for p in params {
            if let Some(v) = get(&p) {
                out.push((p, v));
            }
        }
        out.push(("index".to_string(), index));
        Witness {
            threads,
            values: out,
        }
    }

    /// Evaluates an instantiated (query-level) expression under a model.
    pub(super) fn eval_model(&self, e: &Expr, values: &[(String, i64)]) -> Option<i64> {
        let env = self.env.clone();
        let lookup = move |v: &Var| {
            values
                .iter()
                .find(|(k, _)| **k == *v.name)
                .map(|(_, x)| *x)
                .or_else(|| env.fixed(v.kind))
        };
        Interpreter {
            lookup: &lookup,
            bitvector: self.env.bitvector,
            only: &[],
            max_steps: 1,
            skip: &[],
        }
        .eval_with(e)
        .map(|x| (x != 0) as i64)
    }
}

/// A constraint that excludes the thread identities of one model.
pub(super) fn exclude_model(values: &[(String, i64)]) -> Expr {
    let mut same = Expr::tru();
    for (n, v) in values {
        if n.starts_with("threadIdx") || n.starts_with("blockIdx") || n.starts_with("blockDim") {
            let kind = if n.starts_with("threadIdx") {
                VarKind::ThreadIdx(dim_of(n))
            } else if n.starts_with("blockIdx") {
                VarKind::BlockIdx(dim_of(n))
            } else {
                VarKind::BlockDim(dim_of(n))
            };
            same = Expr::and(
                same,
                Expr::eq(Expr::Var(Var::new(n.as_str(), kind)), Expr::Const(*v)),
            );
        }
    }
    Expr::not(same)
}

pub(super) fn dim_of(name: &str) -> u8 {
    if name.contains(".y") {
        1
    } else if name.contains(".z") {
        2
    } else {
        0
    }
}
