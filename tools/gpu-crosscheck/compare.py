#!/usr/bin/env python3
"""Compare compute-sanitizer racecheck results with Syncscope's verdicts.

Run HERE after run.sh, on the folder it wrote (its $OUT):

    python3 tools/gpu-crosscheck/compare.py OUT_DIR [--manifest PATH] [--json report.json]

OUT_DIR holds results.json, logs/ and (copied by run.sh) manifest.json; the
manifest defaults to OUT_DIR/manifest.json, else tools/gpu-crosscheck/harness/
manifest.json.  Exit status: 1 when a SOUNDNESS ALARM was found (a kernel
Syncscope verified on which racecheck reported a hazard), 0 otherwise.

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# "ERROR: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :"   (hazard report)
# "Error: Race reported between Write access at k()+0x80 in f.cu:13"            (analysis report)
# (Recent versions put a category first: "Warning: (Warp Level Programming) Potential RAW hazard ...".)
HAZARD = re.compile(r"\b(error|warning|info)\s*:\s*(?:\([^)]*\)\s*)?(potential\s+(\w+)\s+hazard|race reported)", re.I)
SUMMARY = re.compile(r"RACECHECK SUMMARY:\s*(\d+)\s+hazards?\s+displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\)", re.I)
LOCATION = re.compile(r"([\w./+-]+\.cuh?):(\d+)")
ANALYSIS_PAIR = re.compile(r"race reported between (\w+) access.*?in ([\w./+-]+\.cuh?):(\d+)", re.I)


def parse_log(path):
    info = {"hazards": 0, "errors": 0, "warnings": 0, "infos": 0, "kinds": set(), "lines": set(),
            "done": False, "xchk_error": None, "sanitizer_error": None, "summary": None, "excerpt": []}
    if not path or not os.path.exists(path):
        info["missing"] = True
        return info
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    in_hazard = 0
    for ln in lines:
        m = HAZARD.search(ln)
        if m:
            sev = m.group(1).lower()
            info["hazards"] += 1
            info["errors" if sev == "error" else "warnings" if sev == "warning" else "infos"] += 1
            if m.group(3):
                info["kinds"].add(m.group(3).upper())
            in_hazard = 4
            if len(info["excerpt"]) < 8:
                info["excerpt"].append(ln.strip("= ").strip())
        if in_hazard:
            for lm in LOCATION.finditer(ln):
                info["lines"].add((os.path.basename(lm.group(1)), int(lm.group(2))))
            in_hazard -= 1
        s = SUMMARY.search(ln)
        if s:
            info["summary"] = (int(s.group(1)), int(s.group(2)), int(s.group(3)))
        if "XCHK DONE" in ln:
            info["done"] = True
        m2 = re.search(r"XCHK (LAUNCH ERROR|SYNC ERROR|SKIP|ALLOC ERROR|ATTR ERROR).*", ln)
        if m2 and not info["xchk_error"]:
            info["xchk_error"] = m2.group(0)
        if re.search(r"Internal Sanitizer Error|Error: No attachable|Target application terminated|unrecognized option|Unable to", ln, re.I) \
                and not info["sanitizer_error"]:
            info["sanitizer_error"] = ln.strip("= ").strip()
    if info["summary"] and info["hazards"] == 0:
        # the summary alone (e.g. a format we do not parse line by line)
        info["hazards"] = info["summary"][0]
        info["errors"] = info["summary"][1]
        info["warnings"] = info["summary"][2]
    return info


def first_error(compile_log):
    if not compile_log or not os.path.exists(compile_log):
        return ""
    with open(compile_log, encoding="utf-8", errors="replace") as f:
        for ln in f:
            if re.search(r"\berror\b", ln, re.I):
                return ln.strip()
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default="out")
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--json", default=None, help="also write the classification as JSON here")
    ap.add_argument("--all", action="store_true", help="list every case, not only the interesting ones")
    args = ap.parse_args()

    out = args.out
    archive = os.path.join(out, "logs.tar.gz")
    if not os.path.isdir(os.path.join(out, "logs")) and os.path.exists(archive):
        # run.sh packs the logs into one archive; unpack it beside a copy
        # of the results when the folder is read-only.
        import shutil, tarfile, tempfile
        if not os.access(out, os.W_OK):
            copy = tempfile.mkdtemp(prefix="xchk-")
            for name in os.listdir(out):
                if os.path.isfile(os.path.join(out, name)):
                    shutil.copy(os.path.join(out, name), copy)
            out = copy
        with tarfile.open(os.path.join(out, "logs.tar.gz")) as t:
            t.extractall(out)
    mpath = args.manifest
    if not mpath:
        mpath = os.path.join(out, "manifest.json")
        if not os.path.exists(mpath):
            mpath = os.path.join(HERE, "harness", "manifest.json")
    with open(mpath) as f:
        manifest = json.load(f)
    rpath = os.path.join(out, "results.json")
    results = {}
    env = ""
    try:
        with open(rpath, encoding="utf-8", errors="replace") as f:
            rj = json.load(f)
        env = rj.get("env", "")
        for r in rj.get("cases", []):
            results[r["id"]] = r
    except Exception as e:
        print("warning: %s unreadable (%s); reading res/*.json and logs/ directly" % (rpath, e))
        rdir = os.path.join(out, "res")
        for name in (os.listdir(rdir) if os.path.isdir(rdir) else []):
            try:
                with open(os.path.join(rdir, name), encoding="utf-8", errors="replace") as f:
                    r = json.loads(f.read())
                results[r["id"]] = r
            except Exception:
                pass

    rows = []
    for c in manifest["cases"]:
        r = results.get(c["id"], {"phase": "missing", "log": "logs/%s.log" % c["id"],
                                   "compile_log": "logs/%s.compile.log" % c["file_id"], "note": ""})
        phase = r.get("phase", "missing")
        if phase == "missing" and os.path.exists(os.path.join(out, "logs", c["id"] + ".log")):
            phase = "run"
        log = parse_log(os.path.join(out, r.get("log") or ("logs/%s.log" % c["id"]))) if phase == "run" else parse_log(None)
        if phase == "run" and log.get("missing"):
            # The logs did not come back (e.g. too many files): the run's own
            # record keeps the racecheck summary and whether the kernel ended.
            s = SUMMARY.search(r.get("summary") or "")
            if s:
                log["summary"] = (int(s.group(1)), int(s.group(2)), int(s.group(3)))
                log["hazards"], log["errors"], log["warnings"] = log["summary"]
            log["done"] = bool(r.get("kernel_done"))
        corpus_base = os.path.basename(c["file"])
        hz_lines = sorted(l for (b, l) in log["lines"] if b == corpus_base)
        race_lines = set(c.get("race_lines") or [])
        lines_match = bool(race_lines & set(hz_lines))
        real_hazards = log["errors"] + log["warnings"]
        any_hazard = log["hazards"] > 0
        verdict = None
        detail = ""
        if phase == "compile-failed":
            verdict = "COMPILE-FAIL"
            detail = r.get("note") or first_error(os.path.join(out, r.get("compile_log", "")))
        elif phase in ("not-run", "missing"):
            verdict = "NOT-RUN"
            detail = r.get("note", "")
        elif c["expect"] == "no-hazard":
            caveats = []
            if c.get("warp_sync"):
                caveats.append("verified under --warp-sync (lockstep warps)")
            if c.get("assumptions_unchecked"):
                caveats.append("assumptions not enforced by the harness: " + "; ".join(c["assumptions_unchecked"]))
            if c.get("cooperative"):
                caveats.append("cooperative launch")
            if real_hazards > 0:
                verdict = "REVIEW" if caveats else "ALARM"
                detail = "; ".join(caveats)
            elif any_hazard:
                verdict = "INFO-HAZARD"   # only info-level hazards (e.g. same value written)
                detail = "only info-level hazards%s" % ((" (syncscope benign-race hints: %d)" % c.get("benign_hints", 0)) if c.get("benign_hints") else "")
            elif not log["done"]:
                verdict = "RUN-ERROR"
            else:
                verdict = "AGREE"
        else:  # racy / control-racy
            if any_hazard:
                verdict = "CONFIRMED"
                detail = "hazard lines %s, ours %s%s" % (hz_lines or "?", sorted(race_lines),
                                                         "" if lines_match or not hz_lines else " (DIFFERENT LINES)")
            elif not log["done"]:
                verdict = "RUN-ERROR"
            else:
                verdict = "NOT-REPRODUCED"
                if c["expect"] == "hazard-if-data-allows":
                    detail = "data-dependent race (zero-filled inputs): %s" % "; ".join(c.get("witness_memory_values", []))[:200]
                elif c["expect"] == "unknown-space":
                    detail = "race variable `%s` not known to be __shared__" % c.get("race_variable")
        if verdict == "RUN-ERROR" or (verdict in ("AGREE", "NOT-REPRODUCED") and not log["done"]):
            note = r.get("note") or log["xchk_error"] or log["sanitizer_error"] or ("rc=%s" % r.get("rc"))
            detail = (detail + "; " if detail else "") + str(note)
        rows.append({"id": c["id"], "file": c["file"], "kernel": c["kernel"], "status": c["status"],
                     "category": c["category"], "expect": c["expect"], "verdict": verdict,
                     "block": c.get("block"), "grid": c.get("grid"), "launch": c.get("launch_source"),
                     "hazards": log["hazards"], "errors": log["errors"], "warnings": log["warnings"],
                     "infos": log["infos"], "kinds": sorted(log["kinds"]), "hazard_lines": hz_lines,
                     "race_lines": sorted(race_lines), "lines_match": lines_match, "detail": detail,
                     "excerpt": log["excerpt"], "log": os.path.join(out, r.get("log") or "")})

    def show(title, sel, verbose=False):
        print()
        print("=" * 100)
        print("%s: %d" % (title, len(sel)))
        print("=" * 100)
        for x in sel:
            print("  %-44s %-34s %-8s blk=%s grd=%s hz=%d(E%d/W%d/I%d) %s" % (
                x["id"], x["kernel"][:34], x["status"], tuple(x["block"] or ()), tuple(x["grid"] or ()),
                x["hazards"], x["errors"], x["warnings"], x["infos"], ",".join(x["kinds"])))
            if x["detail"]:
                print("      %s" % x["detail"][:300])
            if verbose:
                print("      file %s  launch %s  log %s" % (x["file"], x["launch"], x["log"]))
                for e in x["excerpt"][:4]:
                    print("      | %s" % e[:160])

    controls = [x for x in rows if x["category"].startswith("control")]
    print("racecheck cross-check of Syncscope verdicts")
    if env:
        print(env[:600])
    print()
    print("CONTROLS (a known race must be CONFIRMED, a clean kernel AGREE; otherwise distrust everything below):")
    for x in controls:
        ok = (x["category"] == "control-racy" and x["verdict"] == "CONFIRMED") or \
             (x["category"] == "control-clean" and x["verdict"] == "AGREE")
        print("  %-12s %-14s %s  %s" % (x["id"], x["verdict"], "ok" if ok else "<<< CONTROL FAILED", x["detail"][:200]))
        if not ok:
            for e in x["excerpt"][:4]:
                print("      | %s" % e[:160])
    rows = [x for x in rows if not x["category"].startswith("control")]

    alarms = [x for x in rows if x["verdict"] == "ALARM"]
    show("SOUNDNESS ALARM (verified by Syncscope, racecheck reports a hazard)", alarms, verbose=True)
    show("REVIEW (verified, hazard reported, but the run did not meet every premise of the verdict)",
         [x for x in rows if x["verdict"] == "REVIEW"], verbose=True)
    show("verified, only info-level hazards (same value written?)", [x for x in rows if x["verdict"] == "INFO-HAZARD"], verbose=True)
    conf = [x for x in rows if x["verdict"] == "CONFIRMED"]
    show("racy on shared memory, racecheck CONFIRMS a hazard", conf if args.all else
         [x for x in conf if "DIFFERENT LINES" in x["detail"]] )
    if not args.all:
        print("  (%d confirmed; listed above only those whose hazard lines differ from ours; --all lists every one)" % len(conf))
    show("racy, NOT reproduced by racecheck (fine if data-dependent or not on shared memory)",
         [x for x in rows if x["verdict"] == "NOT-REPRODUCED"])
    show("COMPILE FAILURES (first error line)", [x for x in rows if x["verdict"] == "COMPILE-FAIL"])
    show("RUN ERRORS (launch failed, crash, timeout)", [x for x in rows if x["verdict"] == "RUN-ERROR"])
    show("NOT RUN (time budget)", [x for x in rows if x["verdict"] == "NOT-RUN"])
    if args.all:
        show("AGREE (verified, no hazard)", [x for x in rows if x["verdict"] == "AGREE"])

    from collections import Counter
    print()
    print("SUMMARY")
    cnt = Counter((x["category"], x["verdict"]) for x in rows)
    for (cat, v), n in sorted(cnt.items()):
        print("  %-20s %-16s %d" % (cat, v, n))
    skipped = Counter(re.sub(r"[:`(].*", "", s["reason"]).strip() for s in manifest.get("skipped", []))
    print("  kernels not cross-checked (prepare.py): %d" % sum(skipped.values()))
    for r, n in skipped.most_common():
        print("    %4d  %s" % (n, r))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "controls": controls}, f, indent=1, default=list)
    if alarms:
        print()
        names = sorted({"%s:%s" % (x["file"], x["kernel"]) for x in alarms})
        print("!!! %d SOUNDNESS ALARM(S) on %d kernel(s): %s%s" % (len(alarms), len(names), ", ".join(names[:20]),
                                                               " ..." if len(names) > 20 else ""))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
