# Compares two listings of outputs in mix-run's form
# ("sample S output I [SHAPE]: v v v"), line by line:
#   compare-runs.py A B RELATIVE
# Same lines, same shapes, and every value within RELATIVE of the other
# (relative to the larger magnitude, absolute below 1). Prints the worst
# difference; exits 1 on any mismatch.
import sys

a_path, b_path, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
a = [l for l in open(a_path) if l.strip()]
b = [l for l in open(b_path) if l.strip()]
if len(a) != len(b):
    sys.exit(f"{len(a)} lines against {len(b)}")
worst = 0.0
for la, lb in zip(a, b):
    ha, va = la.split(":", 1)
    hb, vb = lb.split(":", 1)
    if ha.strip() != hb.strip():
        sys.exit(f"'{ha.strip()}' against '{hb.strip()}'")
    xs, ys = [float(v) for v in va.split()], [float(v) for v in vb.split()]
    if len(xs) != len(ys):
        sys.exit(f"{ha}: {len(xs)} values against {len(ys)}")
    for x, y in zip(xs, ys):
        d = abs(x - y) / max(1.0, abs(x), abs(y))
        worst = max(worst, d)
        if d > tolerance:
            sys.exit(f"{ha}: {x} against {y}")
print(f"{len(a)} outputs agree; worst relative difference {worst:.3g}")
