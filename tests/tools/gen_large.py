#!/usr/bin/env python3
"""Generates the large inputs of docs/benchmarks.md (section "Large inputs").

    python3 tests/tools/gen_large.py racy-kernels      > /tmp/racy_kernels.cu
    python3 tests/tools/gen_large.py racefree-kernels  > /tmp/racefree_kernels.cu
    python3 tests/tools/gen_large.py global-reads      > /tmp/global_reads.cu
    python3 tests/tools/gen_large.py racy-groups       > /tmp/racy_groups.cu
    python3 tests/tools/gen_large.py barriers          > /tmp/barriers.cu
    python3 tests/tools/gen_large.py all DIR           # every input into DIR

then `/usr/bin/time -v target/release/syncscope check --grid-dim 1 FILE`
(the kernels index global memory by the thread's index in its block, so
with more than one block they race across blocks, rightly). Each subcommand
says in its docstring what it makes and which verdict the file must get.
The output is deterministic (no randomness), so the figures can be
reproduced and compared across branches.
"""

import os
import sys


def racy_kernels(kernels=1000, reads=44):
    """1,000 kernels of 52 lines: a shared write and 44 neighbour reads
    with no barrier between them. Every kernel is `racy`."""
    out = []
    for i in range(kernels):
        k = (
            f"__global__ void kern{i}(float *a) {{\n"
            "    __shared__ float s[256];\n"
            "    int t = threadIdx.x;\n"
            "    float acc = 0.0f;\n"
            f"    s[t] = a[t + {i}];\n"
        )
        k += "".join(f"    acc += s[(t + {j + 1}) % 256];\n" for j in range(reads))
        out.append(k + "    a[t] = acc;\n}\n\n")
    return "".join(out)


def racefree_kernels(kernels=1000, pairs=21):
    """1,000 kernels of 49 lines: a barrier every 2 lines between shared
    writes and neighbour reads (write, barrier, read, barrier, ...), every
    barrier needed. Every kernel is `verified`, no redundant barrier."""
    out = []
    for i in range(kernels):
        k = (
            f"__global__ void kern{i}(float *a) {{\n"
            "    __shared__ float s[256];\n"
            "    int t = threadIdx.x;\n"
            f"    float acc = a[t + {i}];\n"
        )
        for p in range(pairs):
            if p % 2 == 0:
                k += f"    s[t] = acc + {p}.0f;\n"
            else:
                k += f"    acc += s[(t + {p}) % 256];\n"
            k += "    __syncthreads();\n"
        # `pairs` is odd: the last statement above is a write, so this read
        # makes the last barrier needed too.
        k += f"    a[t] = acc + s[(t + {pairs}) % 256];\n}}\n\n"
        out.append(k)
    return "".join(out)


def global_reads(reads=49990):
    """One kernel of 49,999 lines: a shared write, one barrier, 49,990
    reads of global memory, a global write per thread. `verified`."""
    k = (
        "__global__ void global_reads(const float *a, float *b) {\n"
        "    __shared__ float s[256];\n"
        "    int t = threadIdx.x;\n"
        "    int g = blockIdx.x * blockDim.x + t;\n"
        "    float acc = 0.0f;\n"
        "    s[t] = a[g];\n"
        "    __syncthreads();\n"
    )
    k += "".join(f"    acc += a[g + {j + 1}];\n" for j in range(reads))
    return k + "    b[g] = acc + s[(t + 1) % 256];\n}\n"


def racy_groups(groups=1250, reads=39):
    """One kernel of 1,250 groups (51,256 lines): each group a shared write
    from global memory, 39 neighbour reads racing with it, and a barrier.
    `racy`: one race finding per group (39 pairs each)."""
    k = (
        "__global__ void racy_groups(float *a) {\n"
        "    __shared__ float s[256];\n"
        "    int t = threadIdx.x;\n"
        "    float acc = 0.0f;\n"
    )
    for g in range(groups):
        k += f"    s[t] = a[t + {g}];\n"
        k += "".join(f"    acc += s[(t + {j + 1}) % 256];\n" for j in range(reads))
        k += "    __syncthreads();\n"
    return k + "    a[t] = acc;\n}\n"


def barriers(count=25000):
    """One kernel of 50,007 lines with 25,000 barriers: a shared write or a
    neighbour read between each two barriers (write, barrier, read,
    barrier, ...), so every barrier is needed. `verified`, no redundant
    barrier."""
    k = (
        "__global__ void barriers(float *a) {\n"
        "    __shared__ float s[256];\n"
        "    int t = threadIdx.x;\n"
        "    float acc = a[t];\n"
    )
    for p in range(count):
        if p % 2 == 0:
            k += f"    s[t] = acc + {p % 1000}.0f;\n"
        else:
            k += f"    acc += s[(t + {p % 255 + 1}) % 256];\n"
        k += "    __syncthreads();\n"
    # The last statement above is a read (count is even): this write after
    # it makes the last barrier needed too.
    return k + "    s[t] = acc;\n    a[t] = acc;\n}\n"


INPUTS = {
    "racy-kernels": racy_kernels,
    "racefree-kernels": racefree_kernels,
    "global-reads": global_reads,
    "racy-groups": racy_groups,
    "barriers": barriers,
}


def main(argv):
    if len(argv) == 3 and argv[1] == "all":
        os.makedirs(argv[2], exist_ok=True)
        for name, make in INPUTS.items():
            path = os.path.join(argv[2], name.replace("-", "_") + ".cu")
            with open(path, "w") as f:
                f.write(make())
            print(path)
        return 0
    if len(argv) != 2 or argv[1] not in INPUTS:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(INPUTS[argv[1]]())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
