//! Families for the host-code rules that bind a kernel's launches: values
//! in program order (a write after the launch does not count, one before it
//! does, a loop over constants runs), launches in a header read in each
//! includer's unit, power-of-two arguments, a row pitch kept in a global
//! that `cudaMallocPitch` fills in another file, and keys a Thrust sort
//! orders before the launch. Each variant's truth is computed here from its
//! parameters, never by running the engine or the simulator.

use super::*;

/// The kernel file, its header (the signature on the kernel's third line)
/// and the host files, in that order.
fn project(kernel: Src, host: Vec<(&str, String)>) -> Vec<(String, String)> {
    let signature = kernel.text.lines().nth(2).unwrap_or_default().to_string();
    let mut files = vec![
        ("kern.cu".to_string(), kernel.text),
        (
            "kern.cuh".to_string(),
            format!("#pragma once\n\n{signature};\n"),
        ),
    ];
    files.extend(host.into_iter().map(|(n, t)| (n.to_string(), t)));
    files
}

const HOST_INCLUDES: &str =
    "#include <cuda_runtime.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include \"kern.cuh\"\n";

fn width_case(
    family: Family,
    threads: u32,
    files: Vec<(String, String)>,
    widths: Option<Vec<i64>>,
    variant: String,
) -> Case {
    let racy = match &widths {
        None => true,
        Some(ws) => ws.iter().any(|&w| w < i64::from(threads)),
    };
    Case {
        seed: 0,
        family,
        variant: format!("{threads} threads, {variant}"),
        files,
        kernel: "fill_rows".into(),
        params: vec![param("out", ParamKind::Pointer), param("w", ParamKind::Int)],
        launches: vec![LaunchShape::exact([2, 1, 1], [threads, 1, 1])],
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        // A width the host code does not fix is any width.
        host_values: widths
            .map(|ws| vec![("w".to_string(), ws)])
            .unwrap_or_default(),
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

// The launch passes a local whose value the host sets in program order:
// a write after the launch does not reach it, one before it does, a write
// under a condition or through a pointer leaves either value, a loop over
// constants scales it, a loop halves it between launches, a launch in a
// header takes each includer's macro, and `scanf` leaves any width.
// Racy iff some width that reaches a launch is below the block.
pub(super) fn host_order(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[32u32, 64]);
    let w1 = i64::from(*rng.pick(&[16u32, 32, 64, 128]));
    let w2 = i64::from(*rng.pick(&[16u32, 32, 64, 128]));
    let launch = format!("fill_rows<<<2, {threads}>>>(d, w);");
    let mut prelude = String::new();
    let main = |prelude: &str, body: &str| {
        format!(
            "{HOST_INCLUDES}\n{prelude}int main(int argc, char** argv)\n{{\n    int* d = 0;\n    cudaMalloc(&d, 1 << 20);\n{body}    cudaDeviceSynchronize();\n    return 0;\n}}\n"
        )
    };
    let (body, widths, form): (String, Option<Vec<i64>>, String) = match rng.below(8) {
        0 => (
            format!("    int w = {w1};\n    {launch}\n    w = {w2};\n    printf(\"%d\\n\", w);\n"),
            Some(vec![w1]),
            format!("w = {w1}, {w2} written after the launch"),
        ),
        1 => (
            format!("    int w = {w1};\n    w = {w2};\n    {launch}\n"),
            Some(vec![w2]),
            format!("w = {w1}, then {w2} before the launch"),
        ),
        2 => (
            format!("    int w = {w1};\n    if (argc > 2)\n        w = {w2};\n    {launch}\n"),
            Some(vec![w1, w2]),
            format!("w = {w1}, {w2} under a condition"),
        ),
        3 => {
            prelude = format!("static void set_width(int* p)\n{{\n    *p = {w2};\n}}\n\n");
            (
                format!("    int w = {w1};\n    set_width(&w);\n    {launch}\n"),
                Some(vec![w2]),
                format!("w = {w1}, {w2} written through a pointer"),
            )
        }
        4 => {
            let w0 = i64::from(*rng.pick(&[4u32, 8, 16]));
            let k = rng.range(0, 3);
            (
                format!("    int w = {w0};\n    for (int i = 0; i < {k}; i++)\n        w *= 2;\n    {launch}\n"),
                Some(vec![w0 << k]),
                format!("w = {w0} doubled {k} times"),
            )
        }
        5 => {
            let k = rng.range(1, 3);
            (
                format!("    int w = {w1};\n    for (int i = 0; i < {k}; i++) {{\n        {launch}\n        w /= 2;\n    }}\n"),
                Some((0..k).map(|i| w1 >> i).collect()),
                format!("w = {w1} halved after each of {k} launches"),
            )
        }
        6 => {
            // The header's launch reads a macro each includer defines.
            let header = format!(
                "#pragma once\n#include \"kern.cuh\"\n\nstatic void run_rows(int* d)\n{{\n    fill_rows<<<2, {threads}>>>(d, ROW_WIDTH);\n}}\n"
            );
            let second = rng.coin();
            let mut files = vec![
                ("run.cuh", header),
                (
                    "host.cu",
                    main(
                        &format!("#define ROW_WIDTH {w1}\n#include \"run.cuh\"\n\nvoid other(int* d);\n\n"),
                        &format!("    run_rows(d);\n{}", if second { "    other(d);\n" } else { "" }),
                    ),
                ),
            ];
            let mut widths = vec![w1];
            if second {
                files.push((
                    "other.cu",
                    format!("#include <cuda_runtime.h>\n#define ROW_WIDTH {w2}\n#include \"run.cuh\"\n\nvoid other(int* d)\n{{\n    run_rows(d);\n}}\n"),
                ));
                widths.push(w2);
            } else {
                // `other` is defined nowhere else: keep the unit linkable.
                files[1].1.push_str("\nvoid other(int* d)\n{\n}\n");
            }
            return width_case(
                Family::HostOrder,
                threads,
                project(fill_rows_kernel(), files),
                Some(widths.clone()),
                format!("a header's launch under its includers' ROW_WIDTH {widths:?}"),
            );
        }
        _ => (
            format!("    int w = {w1};\n    if (scanf(\"%d\", &w) != 1)\n        return 1;\n    {launch}\n"),
            None,
            format!("w = {w1}, then read by scanf"),
        ),
    };
    width_case(
        Family::HostOrder,
        threads,
        project(fill_rows_kernel(), vec![("host.cu", main(&prelude, &body))]),
        widths,
        form,
    )
}

// The merge step of a bitonic network at stride `s` (as the host-loop
// family): race-free exactly for the strides `merge_step_collides`
// accepts, the powers of two among them. A host function launches it with
// its parameter; the callers pass literals, locals scaled by constants,
// `1 << k`, a helper rounding up to a power of two, or a command-line
// value (any stride). Racy iff some stride that reaches the launch
// collides.
pub(super) fn power_of_two_arguments(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[16u32, 32]);
    let k = merge_step_kernel();
    let mut prelude = format!(
        "static void run(float* a, int s)\n{{\n    merge_step<<<1, {threads}>>>(a, s);\n}}\n\n"
    );
    let mut body = String::new();
    let mut strides = Vec::new();
    let mut unknown = false;
    let mut forms = Vec::new();
    for call in 0..rng.range(1, 3) {
        match rng.below(6) {
            0 => {
                let s = i64::from(*rng.pick(&[1u32, 2, 8, 16, 32, 64]));
                body.push_str(&format!("    run(a, {s});\n"));
                forms.push(format!("literal {s}"));
                strides.push(s);
            }
            1 => {
                let s = i64::from(*rng.pick(&[3u32, 12, 24, 48]));
                body.push_str(&format!("    run(a, {s});\n"));
                forms.push(format!("literal {s}"));
                strides.push(s);
            }
            2 => {
                let b = i64::from(*rng.pick(&[1u32, 2, 3, 4]));
                let m = i64::from(*rng.pick(&[2u32, 4, 8]));
                body.push_str(&format!(
                    "    {{\n        int s{call} = {b};\n        s{call} *= {m};\n        run(a, s{call});\n    }}\n"
                ));
                forms.push(format!("{b} scaled by {m}"));
                strides.push(b * m);
            }
            3 => {
                let sh = rng.range(0, 6);
                body.push_str(&format!("    run(a, 1 << {sh});\n"));
                forms.push(format!("1 << {sh}"));
                strides.push(1 << sh);
            }
            4 => {
                let n = i64::from(*rng.pick(&[3u32, 5, 16, 20, 33]));
                if !prelude.contains("round_up_pow2") {
                    prelude.push_str("static int round_up_pow2(int n)\n{\n    int p = 1;\n    while (p < n)\n        p <<= 1;\n    return p;\n}\n\n");
                }
                body.push_str(&format!("    run(a, round_up_pow2({n}));\n"));
                forms.push(format!("round_up_pow2({n})"));
                strides.push(i64::from((n as u32).next_power_of_two()));
            }
            _ => {
                body.push_str("    if (argc > 1)\n        run(a, atoi(argv[1]));\n");
                forms.push("command line".into());
                unknown = true;
            }
        }
    }
    let racy = unknown
        || strides
            .iter()
            .any(|&s| merge_step_collides(threads, s as u32));
    let host = format!(
        "{HOST_INCLUDES}\n{prelude}int main(int argc, char** argv)\n{{\n    float* a = 0;\n    cudaMalloc(&a, 1 << 20);\n{body}    cudaDeviceSynchronize();\n    return 0;\n}}\n"
    );
    Case {
        seed: 0,
        family: Family::PowerOfTwoArguments,
        variant: format!("{threads} threads; callers: {}", forms.join(", ")),
        files: project(k, vec![("host.cu", host)]),
        kernel: "merge_step".into(),
        params: vec![
            param("a", ParamKind::Pointer),
            param("stride", ParamKind::Int),
        ],
        launches: vec![LaunchShape::exact([1, 1, 1], [threads, 1, 1])],
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        host_values: if unknown {
            Vec::new()
        } else {
            vec![("stride".to_string(), strides)]
        },
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

// Block `b` adds to row `b` of a pitched field, `(float*)((char*)f + b *
// pitch)`, one element a thread: rows overlap when the pitch is below the
// block's bytes. The pitch is a global that `cudaMallocPitch` fills in
// another file with at least the width asked for (the documented
// assumption: the allocation runs before the launch). Another function may
// only read it, allocate a second field into it, halve it or reset it.
// Racy iff the least pitch that can reach the launch is below the block.
pub(super) fn global_pitch(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[32u32, 64]);
    let width = i64::from(*rng.pick(&[16u32, 32, 64, 128]));
    // Rows of floats (a byte offset cast back: checked by the truth
    // alone, the simulator has no byte views of a float buffer) or of bytes.
    let (elem, size) = *rng.pick(&[("float", 4i64), ("unsigned char", 1)]);
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line(&format!(
        "__global__ void shift_rows({elem}* f, size_t pitch)"
    ));
    k.line("{");
    if size == 1 {
        k.line("    unsigned char* row = f + blockIdx.x * pitch;");
        k.line("    row[threadIdx.x] += 1;");
    } else {
        k.line("    float* row = (float*)((char*)f + blockIdx.x * pitch);");
        k.line("    row[threadIdx.x] += 1.0f;");
    }
    k.line("}");
    let (extra, least_bytes, form): (String, i64, String) = match rng.below(5) {
        0 => (String::new(), width * size, "only the allocation".into()),
        1 => (
            "size_t row_bytes()\n{\n    return g_pitch;\n}\n".into(),
            width * size,
            "a reader".into(),
        ),
        2 => {
            let w2 = i64::from(*rng.pick(&[16u32, 32, 64, 128]));
            (
                format!("void make_other({elem}** g)\n{{\n    cudaMallocPitch((void**)g, &g_pitch, {w2} * sizeof({elem}), 4);\n}}\n"),
                width.min(w2) * size,
                format!("a second allocation {w2} wide"),
            )
        }
        3 => (
            "void halve()\n{\n    g_pitch /= 2;\n}\n".into(),
            width * size / 2,
            "halved elsewhere".into(),
        ),
        _ => (
            "void reset()\n{\n    g_pitch = 0;\n}\n".into(),
            0,
            "reset elsewhere".into(),
        ),
    };
    let host = format!(
        "{HOST_INCLUDES}\nsize_t g_pitch;\n\nvoid step({elem}* f)\n{{\n    shift_rows<<<2, {threads}>>>(f, g_pitch);\n}}\n"
    );
    let alloc = format!(
        "#include <cuda_runtime.h>\n\nextern size_t g_pitch;\n\nvoid make_field({elem}** f)\n{{\n    cudaMallocPitch((void**)f, &g_pitch, {width} * sizeof({elem}), 4);\n}}\n\n{extra}"
    );
    let racy = least_bytes < i64::from(threads) * size;
    Case {
        seed: 0,
        family: Family::GlobalPitch,
        variant: format!("{threads} threads, rows of {width} {elem}, {form}"),
        files: project(k, vec![("host.cu", host), ("alloc.cpp", alloc)]),
        kernel: "shift_rows".into(),
        params: vec![
            param("f", ParamKind::Pointer),
            param("pitch", ParamKind::Unsigned),
        ],
        launches: vec![LaunchShape::exact([2, 1, 1], [threads, 1, 1])],
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        // The least pitch, one padded to 512 bytes as the runtime does, and
        // a wide one: what a claim under the pitch fact must survive.
        host_values: vec![(
            "pitch".to_string(),
            vec![least_bytes, (least_bytes + 511) / 512 * 512, 1024],
        )],
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

// The element that starts a run of equal keys (its key differs from its
// left neighbour's) writes `start[key]`: one writer per key exactly when
// equal keys are contiguous, which a sort of the keys before the launch
// guarantees. The host sorts the keys (directly, by key with values, or
// through a helper), sorts another array, or does not sort; between the
// sort and the launch it may copy into the keys, rewrite them with a
// kernel, or only clear the output. Racy iff the keys are not sorted when
// the launch runs.
pub(super) fn host_data_facts(rng: &mut Rng) -> Case {
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void run_starts(unsigned* start, const unsigned* key, unsigned count)");
    k.line("{");
    k.line("    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;");
    k.line("    if (i < count && (i == 0 || key[i] != key[i - 1]))");
    k.line("        start[key[i]] = i;");
    k.line("}");
    let mut helpers = String::new();
    let (sort, sorted, sort_form) = match rng.below(5) {
        0 => (
            "    thrust::sort(thrust::device, d_key, d_key + count);\n".to_string(),
            true,
            "sort",
        ),
        1 => (
            "    thrust::sort_by_key(thrust::device, d_key, d_key + count, d_other);\n".to_string(),
            true,
            "sort_by_key",
        ),
        2 => {
            helpers.push_str("static void sort_keys(unsigned* keys, unsigned n)\n{\n    thrust::sort(thrust::device, keys, keys + n);\n}\n\n");
            (
                "    sort_keys(d_key, count);\n".to_string(),
                true,
                "a sorting helper",
            )
        }
        3 => (
            "    thrust::sort(thrust::device, d_other, d_other + count);\n".to_string(),
            false,
            "another array sorted",
        ),
        _ => (String::new(), false, "no sort"),
    };
    let (between, kept, between_form) = match rng.below(4) {
        0 => (String::new(), true, "nothing between"),
        1 => (
            "    cudaMemset(d_start, 0xff, 4096 * sizeof(unsigned));\n".to_string(),
            true,
            "the output cleared",
        ),
        2 => (
            "    cudaMemcpy(d_key, d_other, count * sizeof(unsigned), cudaMemcpyDeviceToDevice);\n"
                .to_string(),
            false,
            "a copy into the keys",
        ),
        _ => {
            helpers.push_str("__global__ void scramble(unsigned* keys)\n{\n    keys[threadIdx.x] = 31 - threadIdx.x;\n}\n\n");
            (
                "    scramble<<<1, 32>>>(d_key);\n".to_string(),
                false,
                "a kernel rewriting the keys",
            )
        }
    };
    let fact = sorted && kept;
    let includes = "#include <cuda_runtime.h>\n#include <thrust/execution_policy.h>\n#include <thrust/sort.h>\n";
    let host = format!(
        "{helpers}void build(unsigned* d_start, unsigned* d_key, unsigned* d_other, unsigned count)\n{{\n{sort}{between}    run_starts<<<2, 64>>>(d_start, d_key, count);\n}}\n"
    );
    let (files, shape) = match rng.below(3) {
        0 => {
            let own = k.text.replacen("#include \"kern.cuh\"\n", includes, 1);
            (
                vec![("kern.cu".to_string(), format!("{own}\n{host}"))],
                "one file",
            )
        }
        1 => {
            let host = format!("{includes}#include \"kern.cuh\"\n\n{host}");
            (project(k, vec![("host.cu", host)]), "host in its own file")
        }
        _ => {
            // The launch in a function of the kernel's file, which the
            // host's file declares and calls after the sort: the fact is
            // read through the call (`host_data/chain.rs`).
            let launcher = "void launch_starts(unsigned* d_start, unsigned* d_key, unsigned count)";
            let mut files = project(k, Vec::new());
            files[0].1.push_str(&format!(
                "\n{launcher}\n{{\n    run_starts<<<2, 64>>>(d_start, d_key, count);\n}}\n"
            ));
            let caller = format!(
                "{includes}\n{launcher};\n\n{helpers}void build(unsigned* d_start, unsigned* d_key, unsigned* d_other, unsigned count)\n{{\n{sort}{between}    launch_starts(d_start, d_key, count);\n}}\n"
            );
            files.push(("host.cu".to_string(), caller));
            (
                files,
                "launch function in the kernel's file, called from the host's",
            )
        }
    };
    Case {
        seed: 0,
        family: Family::HostDataFacts,
        variant: format!("{sort_form}, {between_form}; {shape}"),
        files,
        kernel: "run_starts".into(),
        params: vec![
            param("start", ParamKind::Pointer),
            param("key", ParamKind::Pointer),
            param("count", ParamKind::Unsigned),
        ],
        launches: vec![LaunchShape::exact([2, 1, 1], [64, 1, 1])],
        truth: Truth {
            racy: !fact,
            ..Truth::default()
        },
        value_probe: None,
        // The host passes its own parameter: any count.
        host_values: Vec::new(),
        sorted_inputs: fact,
        host_launches: Vec::new(),
    }
}
