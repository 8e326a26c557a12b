# docs/diagnostics.md, syntax-error: a Python script passed to
# `syncscope check` by mistake.
import sys

for name in sys.argv[1:]:
    print(name)
