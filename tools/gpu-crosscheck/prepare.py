#!/usr/bin/env python3
"""Generate compute-sanitizer racecheck harnesses for the kernel corpus.

Run HERE (the machine with the Syncscope release binary), from anywhere:

    python3 tools/gpu-crosscheck/prepare.py [--json-cache DIR] [--max-runs 150]

It runs `syncscope check --format json` over every folder of tests/corpus,
picks the kernels racecheck can say something about (verified kernels and
kernels racy on a `__shared__` variable, in files that use `__shared__`),
and writes under tools/gpu-crosscheck/harness/:

    <file-id>.cu       the corpus file's text (after a `#line 1 "<corpus path>"`
                       so racecheck reports corpus line numbers) followed by a
                       main(); one harness per corpus file, `./bin <case>`
                       runs one (kernel, launch) case
    syncscope.h        copy of include/syncscope.h (annotations compile away)
    manifest.json      every case, every skipped kernel with its reason
    cases.tsv          the cases run.sh runs: <file-id> <case> <run-id>
    files.txt          the harnesses run.sh compiles
    syncscope-json/    the raw Syncscope reports the manifest came from

Python 3 standard library only.  See README.md.
"""

import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

BUF_BYTES = 64 << 20      # per pointer parameter
BUF_OFFSET = 16 << 20     # pointer passed = base + offset (room for negative indices)
DYN_SHARED = 48 * 1024    # dynamic shared memory given to kernels using `extern __shared__`

# Symbolic launches: candidate (block, grid) pairs tried in this order; the
# first two that satisfy every stated assumption are run.
BLOCK_CANDIDATES = [
    (256, 1, 1), (16, 16, 1), (128, 1, 1), (64, 1, 1), (32, 8, 1), (1024, 1, 1),
    (512, 1, 1), (32, 1, 1), (32, 32, 1), (8, 8, 4), (96, 1, 1), (192, 1, 1),
    (16, 1, 1), (8, 1, 1), (4, 1, 1), (2, 1, 1), (1, 1, 1), (8, 8, 1), (64, 4, 1),
    (48, 1, 1), (100, 1, 1), (33, 1, 1),
]
GRID_CANDIDATES = [(4, 1, 1), (2, 2, 1), (1, 1, 1), (8, 1, 1), (3, 1, 1), (16, 1, 1),
                   (2, 1, 1), (4, 4, 1), (8, 8, 1), (16, 16, 1), (32, 1, 1), (64, 1, 1)]
PARAM_CANDIDATES = [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384]

SIZE_NAME = re.compile(r"^(n|N|num\w*|count\w*|size\w*|len\w*|length|total\w*|elements|nelem\w*|n_\w+|\w+_n|\w*[Cc]ount)$")


# ----------------------------------------------------------------------------
# Syncscope

def note_dims_taken_as_one(note):
    """The launch dimensions a launch note says were checked as 1."""
    m = re.search(r"except that (.*?) (?:is|are) 1 \(", note)
    return set(re.findall(r"(?:blockDim|gridDim)\.[xyz]", m.group(1))) if m else set()


def run_syncscope(binary, corpus_dirs, cache_dir, save_dir):
    """Returns {file: {"kernels": [...], "findings": [...]}} (paths relative to REPO)."""
    per_file = {}
    os.makedirs(save_dir, exist_ok=True)
    for d in corpus_dirs:
        name = os.path.basename(d.rstrip("/"))
        data = None
        cached = os.path.join(cache_dir, name + ".json") if cache_dir else None
        if cached and os.path.exists(cached):
            try:
                with open(cached) as f:
                    data = json.load(f)
            except Exception:
                data = None
        if data is None:
            rel = os.path.relpath(d, REPO)
            t0 = time.time()
            try:
                p = subprocess.run([binary, "check", "--format", "json", rel], cwd=REPO,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
                data = json.loads(p.stdout.decode("utf-8", "replace"))
            except Exception as e:  # never fatal: record and go on
                print("  syncscope failed on %s: %s" % (rel, e), file=sys.stderr)
                data = {"kernels": [], "findings": [], "error": str(e)}
            print("  syncscope %-14s %5.1f s" % (name, time.time() - t0), file=sys.stderr)
        with open(os.path.join(save_dir, name + ".json"), "w") as f:
            json.dump(data, f)
        for k in data.get("kernels", []):
            per_file.setdefault(k["file"], {"kernels": [], "findings": []})["kernels"].append(k)
        for x in data.get("findings", []):
            per_file.setdefault(x["file"], {"kernels": [], "findings": []})["findings"].append(x)
    return per_file


# ----------------------------------------------------------------------------
# Source helpers

def blank_comments(text):
    """Comments and string/char literals replaced by spaces (newlines kept), so
    positions stay valid and brace matching ignores them."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def offset_of(text, line, col):
    lines = text.split("\n")
    return sum(len(l) + 1 for l in lines[: line - 1]) + col - 1


def match_close(s, i, open_c, close_c):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_c:
            depth += 1
        elif s[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def parse_directives(text):
    """syncscope-args / GPUVerify header: block, grid, macros, flags."""
    d = {"block": None, "grid": None, "defines": {}, "warp_sync": False, "strict_benign": False}
    m = re.search(r"//\s*syncscope-args:(.*)", text)
    toks = m.group(1).split() if m else []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("--block-dim", "--grid-dim") and i + 1 < len(toks):
            dims = [int(x) for x in toks[i + 1].split(",")] + [1, 1]
            d["block" if t == "--block-dim" else "grid"] = tuple(dims[:3])
            i += 2
            continue
        if t.startswith("--block-dim=") or t.startswith("--grid-dim="):
            k, v = t.split("=", 1)
            dims = [int(x) for x in v.split(",")] + [1, 1]
            d["block" if k == "--block-dim" else "grid"] = tuple(dims[:3])
        elif t == "-D" and i + 1 < len(toks):
            nv = toks[i + 1]
            k, _, v = nv.partition("=")
            d["defines"][k] = v if v else "1"
            i += 2
            continue
        elif t.startswith("-D") and len(t) > 2:
            k, _, v = t[2:].partition("=")
            d["defines"][k] = v if v else "1"
        elif t.startswith("--warp-sync"):
            d["warp_sync"] = True
        elif t == "--strict-benign":
            d["strict_benign"] = True
        i += 1
    # GPUVerify header before the first line of code
    for line in text.split("\n"):
        s = line.strip()
        if not s:
            continue
        if not s.startswith("//"):
            break
        if s.startswith("//--"):
            for key, name in (("block", "blockDim"), ("grid", "gridDim")):
                mm = re.search(r"--%s=\[?([\d,]+)\]?" % name, s)
                if mm and d[key] is None:
                    dims = [int(x) for x in mm.group(1).split(",") if x] + [1, 1]
                    d[key] = tuple(dims[:3])
            if "--warp-sync" in s:
                d["warp_sync"] = True
    return d


def file_constants(text, defines):
    """Simple integer constants: -D macros, `#define N 16`, `const int N = 16;`."""
    consts = {}
    for k, v in defines.items():
        try:
            consts[k] = int(v, 0)
        except ValueError:
            pass
    for m in re.finditer(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*(-?\d+)[uUlL]*\s*\)?\s*$", text, re.M):
        consts.setdefault(m.group(1), int(m.group(2)))
    for m in re.finditer(r"\b(?:static\s+)?(?:constexpr|const)\s+(?:unsigned\s+|signed\s+)?(?:int|long|size_t|short|unsigned)\s+([A-Za-z_]\w*)\s*=\s*(-?\d+)[uUlL]*\s*;", text):
        consts.setdefault(m.group(1), int(m.group(2)))
    for m in re.finditer(r"\benum\s*\w*\s*\{([^}]*)\}", text):
        for part in m.group(1).split(","):
            mm = re.match(r"\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*$", part)
            if mm:
                consts.setdefault(mm.group(1), int(mm.group(2)))
    return consts


def parse_dims(s, key):
    m = re.search(key + r"\s*=\s*\((\d+),(\d+),(\d+)\)", s or "")
    return tuple(int(x) for x in m.groups()) if m else None


# ----------------------------------------------------------------------------
# Assumptions: C expressions -> Python predicates

def c_to_py(expr, consts):
    """Translate a C boolean expression over launch sizes, parameters and
    constants to Python; None when it uses anything we do not understand."""
    e = expr.strip()
    m = re.match(r"^(?:__(?:global_)?requires|__assume|__builtin_assume|assert)\s*\((.*)\)\s*;?$", e, re.S)
    if m:
        e = m.group(1)
    if "?" in e or "__" in e.replace("__implies", ""):
        return None
    # __implies(a, b) -> (not (a) or (b)), innermost first
    for _ in range(10):
        m = re.search(r"__implies\s*\(", e)
        if not m:
            break
        start = m.end() - 1
        end = match_close(e, start, "(", ")")
        if end < 0:
            return None
        args = split_top(e[start + 1:end])
        if len(args) != 2:
            return None
        e = e[:m.start()] + "(not (%s) or (%s))" % (args[0], args[1]) + e[end + 1:]
    if "__" in e:
        return None
    e = re.sub(r"\((?:unsigned|int|long|size_t|unsigned int|long long|unsigned long)\)", "", e)
    e = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", e)
    e = re.sub(r"\b(blockDim|gridDim)\.([xyz])\b", r"\1_\2", e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = e.replace("/", "//").replace("true", "True").replace("false", "False")
    if re.search(r"[^\w\s()<>=!+\-*/%&|^~.,]", e):
        return None
    return e


def free_names(pyexpr, consts):
    names = set()
    for tok in re.findall(r"[A-Za-z_]\w*", pyexpr):
        if tok in ("and", "or", "not", "True", "False") or tok in consts:
            continue
        if re.match(r"(blockDim|gridDim)_[xyz]$", tok):
            continue
        names.add(tok)
    return names


def eval_all(preds, env):
    for p in preds:
        try:
            if not eval(p, {"__builtins__": {}}, env):
                return False
        except ZeroDivisionError:
            return False
        except Exception:
            return False
    return True


# ----------------------------------------------------------------------------
# Kernel analysis

SCALAR_WORDS = {"int", "unsigned", "signed", "long", "short", "char", "bool", "float", "double",
                "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
                "uint16_t", "uint32_t", "uint64_t", "uint", "half", "__half", "const", "volatile",
                "__restrict__", "restrict", "__restrict", "unsigned_int", "long_long"}


def analyse_params(ptext, text):
    """[(name, kind, typetext)] with kind pointer|scalar|texture|struct|reference|unknown."""
    params = []
    ptext = ptext.strip()
    if ptext in ("", "void"):
        return params
    for raw in split_top(ptext):
        p = raw.split("=")[0].strip() if "=" in raw and "==" not in raw else raw.strip()
        p = re.sub(r"\[\s*\w*\s*\]", "*", p)           # int a[] -> pointer
        m = re.search(r"([A-Za-z_]\w*)\s*$", p)
        name = m.group(1) if m else ""
        typ = p[: m.start()].strip() if m else p
        if not typ:                                      # unnamed parameter: the whole text is the type
            typ, name = p, ""
        if "&" in typ:
            kind = "reference"
        elif "*" in typ:
            kind = "pointer"
        elif "Texture" in typ or "Surface" in typ:
            kind = "texture"
        else:
            words = re.findall(r"[A-Za-z_]\w*", re.sub(r"<.*>", "", typ))
            if all(w in SCALAR_WORDS for w in words):
                kind = "scalar"
            elif any(re.search(r"\b(struct|class|union)\s+%s\b" % re.escape(w), text) for w in words if w not in SCALAR_WORDS):
                kind = "struct"
            elif "<" in typ:
                kind = "struct"
            else:
                kind = "unknown"   # typedef/enum/template parameter: the harness decides at compile time
        params.append((name, kind, typ))
    return params


def kernel_source(text, ctext, kernel):
    """(param_text, body_text, prefix_text) of the kernel whose name the JSON range points at."""
    r = kernel.get("range", {}).get("start", {})
    try:
        off = offset_of(text, r["line"], r["column"])
    except Exception:
        return None
    name = kernel["name"]
    # the name may be preceded by qualifiers; find it at or after off
    m = re.compile(r"\b%s\s*\(" % re.escape(name)).search(ctext, max(0, off - 2))
    if not m or m.start() - off > 400:
        m = re.compile(r"__global__[^;{]*?\b%s\s*\(" % re.escape(name)).search(ctext)
        if not m:
            return None
    popen = m.end() - 1
    pclose = match_close(ctext, popen, "(", ")")
    if pclose < 0:
        return None
    bopen = ctext.find("{", pclose)
    semi = ctext.find(";", pclose)
    if bopen < 0 or (0 <= semi < bopen):
        return None
    bclose = match_close(ctext, bopen, "{", "}")
    prev = max(ctext.rfind(";", 0, m.start()), ctext.rfind("}", 0, m.start()))
    prefix = ctext[prev + 1: m.start()]
    return text[popen + 1: pclose], ctext[bopen: bclose + 1], prefix


def declared_names(ctext, keyword):
    """Names declared by `keyword` declarations (`__shared__`, `__device__`),
    including `__shared__ union { ... } u;` and comma lists."""
    names = set()
    ctext = re.sub(r"\b(?:__align__|alignas|__declspec)\s*\([^()]*\)|__attribute__\s*\(\([^()]*(?:\([^()]*\)[^()]*)*\)\)", " ", ctext)
    for m in re.finditer(r"\b%s\b" % keyword, ctext):
        i = m.end()
        semi = ctext.find(";", i)
        brace = ctext.find("{", i)
        paren = ctext.find("(", i)
        if semi < 0:
            continue
        if 0 <= brace < semi and not (0 <= paren < brace):
            close = match_close(ctext, brace, "{", "}")
            if close < 0:
                continue
            semi = ctext.find(";", close)
            decl = ctext[close + 1: semi]
        else:
            decl = ctext[i: semi]
            flat = re.sub(r"=.*", "", re.sub(r"\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]", "", decl), flags=re.S)
            if "(" in flat:
                continue    # a function
        decl = re.sub(r"\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]", "", decl)
        for part in split_top(decl):
            part = re.sub(r"=.*", "", part, flags=re.S)
            mm = re.search(r"([A-Za-z_]\w*)\s*$", part.strip())
            if mm:
                names.add(mm.group(1))
    return names


def race_variable(msg):
    m = re.search(r"data race on (?:byte \d+ of |bytes [\d.]+ of )?`([^`]*)`", msg)
    if not m:
        return None
    base = re.match(r"\s*(?:\([^)]*\))?\s*\*?\s*([A-Za-z_]\w*)", m.group(1))
    return base.group(1) if base else None


def memory_dependent(witness, param_names):
    """Witness values that name something other than launch sizes, parameters,
    the raced index and per-thread locals: values read from memory."""
    keys = []
    for k in (witness or {}).get("values", {}):
        if re.match(r"(blockDim|gridDim)\.[xyz]$", k) or k == "index" or k in param_names:
            continue
        if re.search(r"\(thread \d+\)$", k) and not re.search(r"[\[\]*]|->", k):
            continue
        keys.append(k)
    return keys


def default_value(name, kind, block, grid):
    bt = block[0] * block[1] * block[2]
    if kind == "texture":
        return 0
    if SIZE_NAME.match(name or ""):
        return bt * grid[0] * grid[1] * grid[2]
    if re.search(r"width|cols|pitch|stride|^w$|^nx$", name or "", re.I):
        return block[0] * grid[0]
    if re.search(r"height|rows|^h$|^ny$", name or "", re.I):
        return block[1] * grid[1]
    return bt


# ----------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, "target", "release", "syncscope"))
    ap.add_argument("--corpus", default=os.path.join(REPO, "tests", "corpus"))
    ap.add_argument("--out", default=os.path.join(HERE, "harness"))
    ap.add_argument("--json-cache", default=None, help="folder of <corpus-subfolder>.json reports to reuse instead of running syncscope")
    ap.add_argument("--max-runs", type=int, default=450,
                    help="cap on cases (kernel x launch); the lowest priorities are dropped first: "
                         "verified first launch, racy on shared, verified other launches, racy elsewhere")
    ap.add_argument("--launches-per-verified", type=int, default=2)
    args = ap.parse_args()

    out = os.path.abspath(args.out)
    if args.json_cache and os.path.abspath(args.json_cache).startswith(out + os.sep):
        # the cache lives in the folder about to be rewritten: keep a copy
        import tempfile
        tmp = tempfile.mkdtemp(prefix="xchk-json-")
        for name in os.listdir(args.json_cache):
            shutil.copy(os.path.join(args.json_cache, name), tmp)
        args.json_cache = tmp
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    shutil.copy(os.path.join(REPO, "include", "syncscope.h"), os.path.join(out, "syncscope.h"))

    dirs = sorted(os.path.join(args.corpus, d) for d in os.listdir(args.corpus)
                  if os.path.isdir(os.path.join(args.corpus, d)))
    reports = run_syncscope(args.binary, dirs, args.json_cache, os.path.join(out, "syncscope-json"))

    cases = []      # candidate runs
    skipped = []    # {file, kernel, status, reason}

    def skip(f, k, reason):
        skipped.append({"file": f, "kernel": k["name"] if isinstance(k, dict) else k,
                        "status": k.get("status") if isinstance(k, dict) else None, "reason": reason})

    for rel in sorted(reports):
        path = os.path.join(REPO, rel)
        kernels = reports[rel]["kernels"]
        findings = reports[rel]["findings"]
        if not rel.endswith(".cu") or not os.path.exists(path):
            for k in kernels:
                skip(rel, k, "not a corpus .cu file")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        ctext = blank_comments(text)
        file_reason = None
        if "__shared__" not in ctext:
            file_reason = "file uses no __shared__ memory (racecheck sees shared memory only)"
        elif re.search(r"//~[^\n]*syntax-error", text):
            file_reason = "fixture with a deliberate syntax error"
        elif re.search(r"#\s*include\s*<vendor/", ctext):
            file_reason = "needs a header we cannot provide (<vendor/...>)"
        elif re.search(r"\bint\s+main\s*\(", ctext):
            file_reason = "file defines its own main()"
        directives = parse_directives(text)
        consts = file_constants(ctext, directives["defines"])
        snames = declared_names(ctext, "__shared__")
        gnames = (declared_names(ctext, "__device__") | declared_names(ctext, "__constant__")) - snames
        outside_kernels = ctext
        for k in kernels:
            src = kernel_source(text, ctext, k)
            if src:
                outside_kernels = outside_kernels.replace(src[1], "")
        names_count = {}
        for k in kernels:
            names_count[k["name"]] = names_count.get(k["name"], 0) + 1
        for k in kernels:
            st = k.get("status")
            if st not in ("verified", "racy"):
                skip(rel, k, "status %s (only verified and racy kernels are cross-checked)" % st)
                continue
            if file_reason:
                skip(rel, k, file_reason)
                continue
            if names_count[k["name"]] > 1:
                skip(rel, k, "kernel name not unique in the file")
                continue
            src = kernel_source(text, ctext, k)
            if src is None:
                skip(rel, k, "could not locate the kernel's parameter list / body")
                continue
            ptext, body, prefix = src
            launch_str = k.get("launch") or ""
            targs = None
            mt = re.match(r"\s*(<[^;]*?>),\s*blockDim", launch_str)
            if mt:
                targs = mt.group(1)
            is_template = "template" in prefix or re.search(r"template\s*<[^{};]*>\s*(?:static\s+|inline\s+)*__global__[^;{(]*\b%s\s*\(" % re.escape(k["name"]), ctext)
            if is_template and not targs:
                skip(rel, k, "template kernel without an instantiation named by a launch site")
                continue
            if not is_template:
                targs = None    # a launch site may write arguments the kernel does not take
            if "::" in k["name"]:
                skip(rel, k, "qualified kernel name")
                continue
            params = analyse_params(re.sub(r"(?m)^\s*#.*$", "", blank_comments(ptext)), ctext)
            bad = [p for p in params if p[1] in ("reference", "struct")]
            if bad:
                skip(rel, k, "%s parameter `%s`" % (bad[0][1], (bad[0][2] + " " + bad[0][0]).strip()))
                continue
            uses_shared_here = "__shared__" in body or "SharedMemory" in body
            # file-scope __shared__ or device helpers holding the shared declarations
            outside_shared = "__shared__" in outside_kernels
            if not uses_shared_here and not outside_shared:
                skip(rel, k, "kernel uses no __shared__ memory")
                continue
            kf = [x for x in findings if x.get("kernel") == k["name"]]
            dynamic = bool(re.search(r"extern\s+__shared__|__shared__\s+extern", ctext))
            coop = bool(re.search(r"this_grid\s*\(|grid_group", body))
            pnames = [p[0] for p in params]
            base = {
                "file": rel, "kernel": k["name"], "status": st, "template_args": targs,
                "params": [{"name": n, "kind": kd, "type": t} for n, kd, t in params],
                "dynamic_shared": dynamic, "cooperative": coop,
                "warp_sync": directives["warp_sync"], "strict_benign": directives["strict_benign"],
                "syncscope_launch": launch_str, "benign_hints": sum(1 for x in kf if x["kind"] == "benign-race"),
            }
            if st == "racy":
                races = [x for x in kf if x["kind"] == "data-race" and x.get("witness")]
                if not races:
                    skip(rel, k, "racy without a data-race witness (e.g. only unconfirmed)")
                    continue
                chosen = None
                space_seen = []
                for x in races:
                    var = race_variable(x["message"])
                    if var in pnames or var in gnames:
                        space = "global"
                    elif var in snames:
                        space = "shared"
                    else:
                        space = "unknown"
                    space_seen.append(space)
                    if space == "shared" and chosen is None:
                        chosen = (x, var, space)
                if chosen is None:
                    x = races[0]
                    var = race_variable(x["message"])
                    if "unknown" in space_seen:
                        x = races[space_seen.index("unknown")]
                        chosen = (x, race_variable(x["message"]), "unknown")
                    else:
                        skip(rel, k, "racy only on global memory (racecheck cannot see it)")
                        continue
                x, var, space = chosen
                w = x["witness"]
                vals = w.get("values", {})
                block = tuple(int(vals.get("blockDim." + a, 1)) for a in "xyz")
                grid = tuple(int(vals.get("gridDim." + a, 1)) for a in "xyz")
                mem = memory_dependent(w, pnames)
                ptr_params = [n for n, kd, t in params if kd == "pointer"]
                for pp in x.get("pairs", []):
                    for side in ("first", "second"):
                        acc = pp[side].get("text", "")
                        mm = re.search(r"\b%s\s*\[" % re.escape(var or "@"), acc)
                        if not mm:
                            continue
                        close = match_close(acc, mm.end() - 1, "[", "]")
                        sub = acc[mm.end(): close if close > 0 else len(acc)]
                        if "[" in sub or "*" in sub.replace(" * ", "") or any(re.search(r"\b%s\b" % re.escape(n), sub) for n in ptr_params):
                            mem.append("index read from memory: " + acc)
                lines = sorted({pp[s]["range"]["start"]["line"] for pp in x.get("pairs", []) for s in ("first", "second")}
                               | {x["range"]["start"]["line"]})
                pvals = []
                for n, kd, t in params:
                    if kd == "pointer":
                        pvals.append(None)
                    elif n in vals:
                        pvals.append(vals[n])
                    else:
                        pvals.append(default_value(n, kd, block, grid))
                replay = (x.get("sourceReplay") or {}).get("outcome")
                if space != "shared":
                    expect = "unknown-space"
                elif mem:
                    expect = "hazard-if-data-allows"
                else:
                    expect = "hazard"
                c = dict(base, category="racy-shared" if space == "shared" else "racy-unknown-space",
                         launch_source="witness", block=block, grid=grid, param_values=pvals,
                         race_variable=var, race_space=space, race_lines=lines,
                         race_message=x["message"], witness_memory_values=mem, source_replay=replay,
                         expect=expect, priority=1 if space == "shared" else 3)
                cases.append(c)
            else:  # verified
                assumption_texts = []
                for x in kf:
                    if x["kind"] == "assumption":
                        assumed = x["message"].split("neither assumed nor checked")[0]
                        assumed = assumed.split("checked under these assumptions:", 1)[-1]
                        assumption_texts += [a for a in re.findall(r"`([^`]*)`", assumed)
                                             if not re.match(r"\s*__(invariant|ensures|global_ensures)\b", a)]
                assumption_texts = [a for a in assumption_texts if a != k["name"]]
                mem_assume = [a for a in assumption_texts if re.search(r"__distinct|__sorted|_scan\b|_scan\s*\(|\[|->", a)]
                if mem_assume:
                    skip(rel, k, "assumption on input memory contents (zero-filled buffers would violate it): %s" % mem_assume[0])
                    continue
                preds, unparsed = [], []
                for a in assumption_texts:
                    p = c_to_py(a, consts)
                    if p is None:
                        unparsed.append(a)
                    else:
                        preds.append(p)
                env0 = dict(consts)
                fixed_block = parse_dims(launch_str, "blockDim")
                fixed_grid = parse_dims(launch_str, "gridDim")
                # launch strings like "blockDim = (...) (from the directive)": grid may be symbolic
                blocks = [fixed_block] if fixed_block else BLOCK_CANDIDATES
                grids = [fixed_grid] if fixed_grid else GRID_CANDIDATES
                # Dimensions the kernel never reads are checked as 1 (the
                # launch note says "except that blockDim.y, ... are 1"): a
                # launch using them is outside the verdict.
                as_one = note_dims_taken_as_one(k.get("launchNote") or "")
                blocks = [b for b in blocks if all(b[d] == 1 for d in range(3) if "blockDim." + "xyz"[d] in as_one)]
                grids = [g for g in grids if all(g[d] == 1 for d in range(3) if "gridDim." + "xyz"[d] in as_one)]
                lb = re.search(r"__launch_bounds__\s*\(\s*([A-Za-z_]\w*|\d+)", prefix)
                maxthreads = 1024
                if lb:
                    v = lb.group(1)
                    maxthreads = int(v) if v.isdigit() else consts.get(v, 1024)
                pfree = set()
                for p in preds:
                    pfree |= free_names(p, consts)
                unknown_names = sorted(n for n in pfree if n not in pnames)
                if unknown_names:
                    # a predicate over something that is neither a launch size nor a parameter
                    keep = []
                    for p in preds:
                        if free_names(p, consts) & set(unknown_names):
                            unparsed.append(p)
                        else:
                            keep.append(p)
                    preds = keep
                    pfree = set()
                    for p in preds:
                        pfree |= free_names(p, consts)
                cparams = [n for n in pnames if n in pfree][:3]
                found = []
                tries = 0
                for b in blocks:
                    if b[0] * b[1] * b[2] > maxthreads or b[0] * b[1] * b[2] > 1024 or b[2] > 64:
                        continue
                    for g in grids:
                        base_env = dict(env0, blockDim_x=b[0], blockDim_y=b[1], blockDim_z=b[2],
                                        gridDim_x=g[0], gridDim_y=g[1], gridDim_z=g[2])
                        defaults = {n: default_value(n, kd, b, g) for n, kd, t in params}
                        choices = [[defaults[n]] + [v for v in PARAM_CANDIDATES + [b[0], b[0] * g[0], b[1] * g[1]] if v != defaults[n]] for n in cparams]
                        for combo in itertools.product(*choices):
                            tries += 1
                            if tries > 200000:
                                break
                            env = dict(base_env)
                            env.update(defaults)
                            env.update(dict(zip(cparams, combo)))
                            if eval_all(preds, env):
                                found.append((b, g, dict(zip(cparams, combo)), defaults))
                                break
                        if len(found) >= args.launches_per_verified or tries > 200000:
                            break
                        if found and found[-1][0] == b:
                            break   # next block shape for variety
                    if len(found) >= args.launches_per_verified or tries > 200000:
                        break
                if not found:
                    skip(rel, k, "no candidate launch satisfies the assumptions: %s" % "; ".join(assumption_texts))
                    continue
                for li, (b, g, chosen_params, defaults) in enumerate(found):
                    pvals = []
                    for n, kd, t in params:
                        if kd == "pointer":
                            pvals.append(None)
                        else:
                            pvals.append(chosen_params.get(n, defaults[n]))
                    c = dict(base, category="verified", launch_source=("fixed" if fixed_block and fixed_grid else "chosen") + " launch %d" % li,
                             block=b, grid=g, param_values=pvals, assumptions=assumption_texts,
                             assumptions_unchecked=unparsed, expect="no-hazard", priority=0 if li == 0 else 2)
                    cases.append(c)

    # cap: every verified case first, then racy on shared, then unknown space
    cases.sort(key=lambda c: (c["priority"], c["file"], c["kernel"]))
    selected, over = cases[: args.max_runs], cases[args.max_runs:]
    for c in over:
        skipped.append({"file": c["file"], "kernel": c["kernel"], "status": c["status"],
                        "reason": "over the --max-runs cap (%d)" % args.max_runs})

    # group by file, write harnesses
    by_file = {}
    for c in selected:
        by_file.setdefault(c["file"], []).append(c)
    manifest_cases = []
    tsv = []
    for rel, cs in sorted(by_file.items()):
        fid = re.sub(r"[^A-Za-z0-9_]", "_", os.path.splitext(os.path.relpath(rel, "tests/corpus"))[0])
        for i, c in enumerate(cs):
            c["file_id"] = fid
            c["case"] = i
            c["id"] = "%s.%d" % (fid, i)
            tsv.append("%s\t%d\t%s" % (fid, i, c["id"]))
            manifest_cases.append(c)
        write_harness(os.path.join(out, fid + ".cu"), rel, cs)

    # positive / negative control: shows racecheck works and how it reports
    with open(os.path.join(out, "_control.cu"), "w") as f:
        f.write(CONTROL_SRC)
    controls = [
        {"id": "_control.0", "file_id": "_control", "case": 0, "file": "_control.cu", "kernel": "control_racy",
         "status": "racy", "category": "control-racy", "expect": "hazard", "priority": -1,
         "block": [64, 1, 1], "grid": [2, 1, 1], "race_lines": [CONTROL_RACE_LINE], "launch_source": "fixed"},
        {"id": "_control.1", "file_id": "_control", "case": 1, "file": "_control.cu", "kernel": "control_clean",
         "status": "verified", "category": "control-clean", "expect": "no-hazard", "priority": -1,
         "block": [64, 1, 1], "grid": [2, 1, 1], "launch_source": "fixed"},
    ]
    tsv = ["_control\t0\t_control.0", "_control\t1\t_control.1"] + tsv
    manifest_cases = controls + manifest_cases
    with open(os.path.join(out, "cases.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")
    # files in priority order, so that a run cut short by its time budget
    # loses the least important cases
    best = {}
    for c in manifest_cases:
        best[c["file_id"]] = min(best.get(c["file_id"], 99), c["priority"])
    with open(os.path.join(out, "files.txt"), "w") as f:
        f.write("\n".join(sorted(best, key=lambda fid: (best[fid], fid))) + "\n")
    manifest = {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "syncscope": args.binary,
        "buffer_bytes": BUF_BYTES, "buffer_offset": BUF_OFFSET, "dynamic_shared_bytes": DYN_SHARED,
        "cases": manifest_cases, "skipped": skipped,
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)

    # summary
    from collections import Counter
    cat = Counter(c["category"] for c in manifest_cases)
    print("harness files: %d, cases: %d" % (len(by_file), len(manifest_cases)))
    for k, v in sorted(cat.items()):
        print("  %-20s %d" % (k, v))
    print("  kernels: verified %d, racy %d" % (
        len({(c["file"], c["kernel"]) for c in manifest_cases if c["category"] == "verified"}),
        len({(c["file"], c["kernel"]) for c in manifest_cases if c["category"].startswith("racy")})))
    reasons = Counter(re.sub(r"[:`(].*", "", s["reason"]).strip() for s in skipped)
    print("skipped kernels: %d" % len(skipped))
    for r, n in reasons.most_common():
        print("  %4d  %s" % (n, r))
    print("wrote %s" % out)


# ----------------------------------------------------------------------------
# Harness text

CONTROL_SRC = r'''// Generated by tools/gpu-crosscheck/prepare.py: racecheck controls.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void control_racy(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % 64]; // RACE: no barrier
}

__global__ void control_clean(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

int main(int argc, char **argv)
{
    int which = argc > 1 ? atoi(argv[1]) : 0;
    int *out;
    cudaMalloc(&out, 4096);
    printf("XCHK CASE %d control\n", which);
    if (which == 0) control_racy<<<2, 64>>>(out); else control_clean<<<2, 64>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("XCHK SYNC ERROR: %s\n", cudaGetErrorString(e)); return 2; }
    printf("XCHK DONE\n");
    return 0;
}
'''
CONTROL_RACE_LINE = 10

HARNESS_PRELUDE = r'''// Generated by tools/gpu-crosscheck/prepare.py -- do not edit.
// Corpus file: %(rel)s
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <new>
#include <cuda_runtime.h>
#include <cassert>
#include <assert.h>   /* before syncscope.h: glibc declares a function named __assert */
#include "syncscope.h"
%(defines)s#line 1 "%(rel)s"
'''

HARNESS_MAIN = r'''
#line %(line)d "%(fid)s.cu"
// ---------------------------------------------------------------- harness
static const size_t xchk_buf_bytes = %(buf)dull;
static const size_t xchk_buf_offset = %(off)dull;

static void *xchk_buffer(void)
{
    char *xchk_p = nullptr;
    cudaError_t xchk_e = cudaMalloc((void **)&xchk_p, xchk_buf_bytes);
    if (xchk_e != cudaSuccess) { printf("XCHK ALLOC ERROR: %%s\n", cudaGetErrorString(xchk_e)); exit(4); }
    cudaMemset(xchk_p, 0, xchk_buf_bytes);
    return xchk_p + xchk_buf_offset;
}

static void *xchk_pointer_table(void)
{
    // a table of pointers, each to the middle of one zero-filled scratch buffer
    static void *xchk_scratch = nullptr;
    if (!xchk_scratch) xchk_scratch = xchk_buffer();
    const size_t xchk_n = (4u << 20) / sizeof(void *);
    void **xchk_host = (void **)malloc(xchk_n * sizeof(void *));
    for (size_t xchk_i = 0; xchk_i < xchk_n; xchk_i++) xchk_host[xchk_i] = xchk_scratch;
    char *xchk_p = nullptr;
    cudaError_t xchk_e = cudaMalloc((void **)&xchk_p, xchk_n * sizeof(void *));
    if (xchk_e != cudaSuccess) { printf("XCHK ALLOC ERROR: %%s\n", cudaGetErrorString(xchk_e)); exit(4); }
    cudaMemcpy(xchk_p, xchk_host, xchk_n * sizeof(void *), cudaMemcpyHostToDevice);
    free(xchk_host);
    return xchk_p + (xchk_n / 4) * sizeof(void *);
}

template <typename XchkT>
static XchkT xchk_arg(double xchk_v)
{
    if constexpr (std::is_pointer<XchkT>::value) {
        typedef typename std::remove_cv<typename std::remove_pointer<XchkT>::type>::type XchkP;
        if constexpr (std::is_pointer<XchkP>::value) return (XchkT)xchk_pointer_table();
        else return (XchkT)xchk_buffer();
    } else if constexpr (std::is_floating_point<XchkT>::value) {
        return (XchkT)xchk_v;
    } else if constexpr (std::is_integral<XchkT>::value || std::is_enum<XchkT>::value) {
        return (XchkT)(long long)xchk_v;
    } else if constexpr (std::is_constructible<XchkT, long long>::value && !std::is_class<XchkT>::value) {
        return XchkT((long long)xchk_v);
    } else {
        // a class type (vector type, half, struct): all-zero bytes
        alignas(XchkT) unsigned char xchk_raw[sizeof(XchkT)];
        memset(xchk_raw, 0, sizeof xchk_raw);
        XchkT xchk_x;
        memcpy((void *)&xchk_x, xchk_raw, sizeof xchk_x);
        return xchk_x;
    }
}

template <typename... XchkArgs, size_t... XchkI>
static int xchk_launch(void (*xchk_k)(XchkArgs...), std::index_sequence<XchkI...>, dim3 xchk_grid, dim3 xchk_block,
                       int xchk_dynamic, int xchk_coop, const double *xchk_vals)
{
    cudaFuncAttributes xchk_attr;
    cudaError_t xchk_e = cudaFuncGetAttributes(&xchk_attr, (const void *)xchk_k);
    if (xchk_e != cudaSuccess) { printf("XCHK ATTR ERROR: %%s\n", cudaGetErrorString(xchk_e)); return 2; }
    unsigned xchk_threads = xchk_block.x * xchk_block.y * xchk_block.z;
    if ((int)xchk_threads > xchk_attr.maxThreadsPerBlock) {
        printf("XCHK SKIP: block of %%u threads > maxThreadsPerBlock %%d (registers %%d)\n",
               xchk_threads, xchk_attr.maxThreadsPerBlock, xchk_attr.numRegs);
        return 3;
    }
    size_t xchk_shm = 0;
    if (xchk_dynamic) {
        xchk_shm = %(dyn)d;
        if (xchk_attr.sharedSizeBytes < xchk_shm) xchk_shm -= xchk_attr.sharedSizeBytes; else xchk_shm = 0;
        cudaFuncSetAttribute((const void *)xchk_k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)xchk_shm);
    }
    std::tuple<typename std::decay<XchkArgs>::type...> xchk_args(xchk_arg<typename std::decay<XchkArgs>::type>(xchk_vals[XchkI])...);
    void *xchk_argv[sizeof...(XchkArgs) + 1] = {(void *)&std::get<XchkI>(xchk_args)..., nullptr};
    cudaDeviceSynchronize();
    printf("XCHK LAUNCH grid=(%%u,%%u,%%u) block=(%%u,%%u,%%u) dynamic_shared=%%zu static_shared=%%zu coop=%%d\n",
           xchk_grid.x, xchk_grid.y, xchk_grid.z, xchk_block.x, xchk_block.y, xchk_block.z, xchk_shm, (size_t)xchk_attr.sharedSizeBytes, xchk_coop);
    fflush(stdout);
    if (xchk_coop) xchk_e = cudaLaunchCooperativeKernel((const void *)xchk_k, xchk_grid, xchk_block, xchk_argv, xchk_shm, 0);
    else xchk_e = cudaLaunchKernel((const void *)xchk_k, xchk_grid, xchk_block, xchk_argv, xchk_shm, 0);
    if (xchk_e != cudaSuccess) { printf("XCHK LAUNCH ERROR: %%s\n", cudaGetErrorString(xchk_e)); return 2; }
    xchk_e = cudaDeviceSynchronize();
    if (xchk_e != cudaSuccess) { printf("XCHK SYNC ERROR: %%s\n", cudaGetErrorString(xchk_e)); return 2; }
    printf("XCHK DONE\n");
    return 0;
}

template <typename... XchkArgs>
static int xchk_run(void (*xchk_k)(XchkArgs...), dim3 xchk_grid, dim3 xchk_block, int xchk_dynamic, int xchk_coop, const double *xchk_vals)
{
    return xchk_launch(xchk_k, std::index_sequence_for<XchkArgs...>{}, xchk_grid, xchk_block, xchk_dynamic, xchk_coop, xchk_vals);
}

int main(int argc, char **argv)
{
    int xchk_which = argc > 1 ? atoi(argv[1]) : -1;
    switch (xchk_which) {
%(cases)s
    default:
        printf("usage: %%s <case 0..%(ncases_m1)d>\n", argv[0]);
        return 1;
    }
}
'''


def write_harness(path, rel, cases):
    with open(os.path.join(REPO, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    if not text.endswith("\n"):
        text += "\n"
    defines = ""
    if re.search(r"\b__assume\s*\(", text):
        # MSVC's builtin; Syncscope reads it as an assumption, g++-hosted nvcc may not know it
        defines += "#if !defined(_MSC_VER) && !defined(__assume)\n#define __assume(...) ((void)0)\n#endif\n"
    for k, v in parse_directives(text)["defines"].items():
        defines += "#ifndef %s\n#define %s %s\n#endif\n" % (k, k, v)
    prelude = HARNESS_PRELUDE % {"rel": rel, "defines": defines}
    fid = os.path.splitext(os.path.basename(path))[0]
    body_lines = []
    for c in cases:
        # one value per parameter (pointers: unused 0.0), padded in case the
        # kernel has more parameters than prepare.py read
        vals = ", ".join([repr(float(v)) if v is not None else "0.0" for v in c["param_values"]] + ["0.0"] * 8)
        fn = "&" + c["kernel"] + (c["template_args"] or "")
        body_lines.append(
            "    case %d: { // %s, %s (%s)\n"
            "        static const double xchk_vals[] = {%s};\n"
            "        printf(\"XCHK CASE %d %s %s\\n\");\n"
            "        return xchk_run(%s, dim3(%d, %d, %d), dim3(%d, %d, %d), %d, %d, xchk_vals);\n"
            "    }" % (c["case"], c["kernel"], c["category"], c["launch_source"], vals,
                      c["case"], c["kernel"], c["category"],
                      fn, c["grid"][0], c["grid"][1], c["grid"][2],
                      c["block"][0], c["block"][1], c["block"][2],
                      1 if c["dynamic_shared"] else 0, 1 if c["cooperative"] else 0))
    main_text = HARNESS_MAIN % {
        "line": prelude.count("\n") + text.count("\n") + 3, "fid": fid,
        "buf": BUF_BYTES, "off": BUF_OFFSET, "dyn": DYN_SHARED,
        "cases": "\n".join(body_lines), "ncases_m1": len(cases) - 1,
    }
    with open(path, "w") as f:
        f.write(prelude + text + main_text)


if __name__ == "__main__":
    main()
