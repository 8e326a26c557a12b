//! Runs the simulator on one kernel, for a person at a terminal:
//!
//! ```text
//! cargo run -p syncscope-sim --example simulate -- FILE.cu [KERNEL]
//!     [--grid X[,Y[,Z]]] [--block X[,Y[,Z]]] [-D NAME[=VALUE]] [-I DIR]
//!     [--scalar NAME=VALUE] [--len N] [--fill zero|index|const:V|random:SEED]
//!     [--order forward|reverse|seeded:SEED|interleaved:SEED] [--max-steps N]
//! ```
//!
//! Without a kernel name every kernel of the file runs. The outcome is
//! printed as the simulator's `Outcome`.

use std::path::PathBuf;

use syncscope_sim::{kernels, simulate, Fill, Inputs, Launch, Order, Scalar, SimOptions};

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate() {
        if i >= 3 {
            return Err(format!("too many dimensions in `{s}`"));
        }
        d[i] = p.trim().parse().map_err(|_| format!("not a size: `{p}`"))?;
    }
    Ok(d)
}

fn seed(s: &str, prefix: &str) -> Option<u64> {
    s.strip_prefix(prefix).and_then(|v| v.parse().ok())
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut kernel = None;
    let mut launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
    };
    let mut inputs = Inputs::default();
    let mut opts = SimOptions::default();
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("`{a}` needs a value"));
        match a.as_str() {
            "--grid" => launch.grid = dims(&value()?)?,
            "--block" => launch.block = dims(&value()?)?,
            "-D" => {
                let v = value()?;
                let (k, x) = v.split_once('=').unwrap_or((&v, "1"));
                opts.defines.push((k.to_string(), x.to_string()));
            }
            "-I" => opts.include_dirs.push(PathBuf::from(value()?)),
            "--scalar" => {
                let v = value()?;
                let (k, x) = v.split_once('=').ok_or("--scalar NAME=VALUE")?;
                let s = match x.parse::<i64>() {
                    Ok(i) => Scalar::Int(i),
                    Err(_) => Scalar::Float(x.parse().map_err(|_| format!("not a number: `{x}`"))?),
                };
                inputs.scalars.insert(k.to_string(), s);
            }
            "--len" => inputs.buffer_len = value()?.parse().map_err(|_| "--len N")?,
            "--max-steps" => opts.max_steps = value()?.parse().map_err(|_| "--max-steps N")?,
            "--fill" => {
                let v = value()?;
                inputs.fill = match v.as_str() {
                    "zero" => Fill::Zero,
                    "index" => Fill::Index,
                    _ => {
                        if let Some(c) = v.strip_prefix("const:").and_then(|c| c.parse().ok()) {
                            Fill::Constant(c)
                        } else if let Some(s) = seed(&v, "random:") {
                            Fill::Random(s)
                        } else {
                            return Err(format!("unknown fill `{v}`"));
                        }
                    }
                };
            }
            "--order" => {
                let v = value()?;
                opts.order = match v.as_str() {
                    "forward" => Order::Forward,
                    "reverse" => Order::Reverse,
                    _ => {
                        if let Some(s) = seed(&v, "seeded:") {
                            Order::Seeded(s)
                        } else if let Some(s) = seed(&v, "interleaved:") {
                            Order::Interleaved(s)
                        } else {
                            return Err(format!("unknown order `{v}`"));
                        }
                    }
                };
            }
            _ if a.starts_with('-') => return Err(format!("unknown option `{a}`")),
            _ if file.is_none() => file = Some(PathBuf::from(a)),
            _ if kernel.is_none() => kernel = Some(a),
            _ => return Err(format!("unexpected `{a}`")),
        }
    }
    let file = file.ok_or("usage: simulate FILE.cu [KERNEL] [options]")?;
    let source = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let names = match kernel {
        Some(k) => vec![k],
        None => kernels(&source),
    };
    for k in names {
        let outcome = simulate(&file, &source, &k, &launch, &inputs, &opts);
        println!("{k}: {outcome:?}");
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("simulate: {e}");
        std::process::exit(2);
    }
}
