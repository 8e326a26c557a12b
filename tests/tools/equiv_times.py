#!/usr/bin/env python3
"""Times every pair of tests/corpus/equiv/MANIFEST with `syncscope equiv`.

Usage, from tests/corpus: python3 ../tools/equiv_times.py BINARY
Prints a Markdown table: verdict, concrete launches, queries and the median
wall time of three runs of each pair (docs/benchmarks.md)."""
import subprocess, time, json, statistics, sys
binary = sys.argv[1]
rows = []
for line in open('equiv/MANIFEST'):
    line = line.strip()
    if not line or line.startswith('#'): continue
    parts = line.split()
    exp, a, b = parts[:3]
    extra = ['--assoc'] if '--assoc' in parts[3:] else []
    times = []; verdict = None; q = None; l = None
    for _ in range(3):
        t = time.time()
        out = subprocess.run([binary, 'equiv', a, b, '--format', 'json'] + extra, capture_output=True, text=True)
        times.append((time.time() - t) * 1000)
        try:
            j = json.loads(out.stdout); verdict = j['verdict']; q = j['queries']; l = j['launches']
        except Exception:
            verdict = 'error rc=%d' % out.returncode
    rows.append((a, b, ' '.join(extra), exp, verdict, l, q, statistics.median(times)))
print('| A | B | option | expected | got | concrete launches | queries | median ms |')
print('|---|---|---|---|---|---|---|---|')
for r in rows:
    print('| `%s` | `%s` | %s | %s | %s | %s | %s | %.0f |' % r)
