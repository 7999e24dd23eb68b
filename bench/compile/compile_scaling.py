#!/usr/bin/env python3
"""Compile time and peak memory of mixc against model size.

Generates networks of N layers in three shapes, compiles each with mixc at
-O0 and -O2 (one process per compile, timed with wait4: wall time and peak
resident memory of that process alone), and fits time = a + b * layers by
least squares. A benchmark, not a test: it prints a table and the fit.

  python3 bench/compile/compile_scaling.py [--mixc build/bin/mixc]
      [--layers 100,1000,10000] [--shapes chain,resnet,transformer]

Shapes (weights inline, distinct per layer, so the object holds them all):
  chain        relu layers on 1x64 f32
  resnet       residual blocks: conv2d 3x3 + batch_norm + relu, twice, add
               (7 layers per block) on 1x8x8x8, every other block f16
  transformer  blocks: layer_norm, attention, add, layer_norm, dense, gelu,
               dense, add (8 layers per block) on 1x8x32, blocks f16
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time


def weight(shape, seed):
    """An inline splat weight: mixc stores it whole, like a dense one."""
    dims = "x".join(str(d) for d in shape)
    return f"dense<{0.01 * (seed % 97 + 1):.4f}> : tensor<{dims}xf32>"


def chain(n):
    lines = ["mix.network @chain precision(f32) (%x: tensor<1x64xf32>) -> tensor<1x64xf32> {"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %r{i} = mix.relu {prev} : (tensor<1x64xf32>) -> tensor<1x64xf32>")
        prev = f"%r{i}"
    lines += [f"  mix.return {prev} : tensor<1x64xf32>", "}"]
    return "\n".join(lines), n


def resnet(n):
    t = "tensor<1x8x8x8xf32>"
    blocks = max(1, n // 7)
    lines = [f"mix.network @resnet precision(f32) (%x: {t}) -> {t} {{"]
    prev = "%x"
    for b in range(blocks):
        prec = " precision(f16)" if b % 2 else ""
        lines.append(f"  %blk{b} = mix.block @block{b}{prec} (%in = {prev}) : ({t}) -> {t} {{")
        cur = "%in"
        for k in (1, 2):
            lines.append(f"    %w{k} = mix.weight {weight([8, 8, 3, 3], b * 7 + k)}")
            lines.append(f"    %c{k} = mix.conv2d {cur}, %w{k} {{padding = array<i64: 1, 1, 1, 1>}} : ({t}, tensor<8x8x3x3xf32>) -> {t}")
            for p in "sbmv":
                lines.append(f"    %{p}{k} = mix.weight {weight([8], b * 7 + k + ord(p))}")
            lines.append(f"    %n{k} = mix.batch_norm %c{k}, %s{k}, %b{k}, %m{k}, %v{k} : ({t}, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> {t}")
            if k == 1:
                lines.append(f"    %r{k} = mix.relu %n{k} : ({t}) -> {t}")
                cur = f"%r{k}"
        lines.append(f"    %sum = mix.add %n2, %in : ({t}, {t}) -> {t}")
        lines.append(f"    %out = mix.relu %sum : ({t}) -> {t}")
        lines.append(f"    mix.yield %out : {t}")
        lines.append("  }")
        prev = f"%blk{b}"
    lines += [f"  mix.return {prev} : {t}", "}"]
    return "\n".join(lines), blocks * 7


def transformer(n):
    t = "tensor<1x8x32xf32>"
    blocks = max(1, n // 8)
    lines = [f"mix.network @transformer precision(f32) (%x: {t}) -> {t} {{"]
    prev = "%x"
    for b in range(blocks):
        s = b * 8
        lines.append(f"  %blk{b} = mix.block @block{b} precision(f16) (%in = {prev}) : ({t}) -> {t} {{")
        v = lambda shape, k: f"mix.weight {weight(shape, s + k)}"
        lines += [
            f"    %g1 = {v([32], 1)}", f"    %e1 = {v([32], 2)}",
            f"    %n1 = mix.layer_norm %in, %g1, %e1 precision(f32) : ({t}, tensor<32xf32>, tensor<32xf32>) -> {t}",
            f"    %wq = {v([32, 32], 3)}", f"    %wk = {v([32, 32], 4)}",
            f"    %wv = {v([32, 32], 5)}", f"    %wo = {v([32, 32], 6)}",
            f"    %a = mix.attention %n1, %wq, %wk, %wv, %wo {{causal = true, num_heads = 4 : i64}} : ({t}, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> {t}",
            f"    %r1 = mix.add %in, %a : ({t}, {t}) -> {t}",
            f"    %g2 = {v([32], 7)}", f"    %e2 = {v([32], 8)}",
            f"    %n2 = mix.layer_norm %r1, %g2, %e2 precision(f32) : ({t}, tensor<32xf32>, tensor<32xf32>) -> {t}",
            f"    %w1 = {v([32, 64], 9)}", f"    %c1 = {v([64], 10)}",
            f"    %u = mix.dense %n2, %w1, %c1 : ({t}, tensor<32x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>",
            f"    %g = mix.gelu %u {{approximate = true}} : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>",
            f"    %w2 = {v([64, 32], 11)}", f"    %c2 = {v([32], 12)}",
            f"    %d = mix.dense %g, %w2, %c2 : (tensor<1x8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> {t}",
            f"    %r2 = mix.add %r1, %d : ({t}, {t}) -> {t}",
            f"    mix.yield %r2 : {t}",
            "  }",
        ]
        prev = f"%blk{b}"
    lines += [f"  mix.return {prev} : {t}", "}"]
    return "\n".join(lines), blocks * 8


SHAPES = {"chain": chain, "resnet": resnet, "transformer": transformer}


def measure(mixc, model, opt, out):
    start = time.monotonic()
    proc = subprocess.Popen([mixc, model, "-o", out, f"-O{opt}", "--no-policy"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"mixc failed on {model}: {err}")
    return seconds, usage.ru_maxrss / 1024.0  # MB


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    ss = sum((y - my) ** 2 for y in ys)
    r2 = 1 - sum((y - a - b * x) ** 2 for x, y in zip(xs, ys)) / ss if ss else 1.0
    return a, b, r2


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mixc", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "mixc"))
    p.add_argument("--layers", default="100,1000,10000")
    p.add_argument("--shapes", default="chain,resnet,transformer")
    p.add_argument("--opt", default="0,2")
    args = p.parse_args()
    sizes = [int(s) for s in args.layers.split(",")]
    print(f"{'shape':12} {'-O':>3} {'layers':>7} {'seconds':>9} {'peak MB':>9} {'ms/layer':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            for opt in [int(o) for o in args.opt.split(",")]:
                xs, ys = [], []
                for n in sizes:
                    text, layers = SHAPES[shape](n)
                    model = os.path.join(tmp, f"{shape}{n}.mlir")
                    with open(model, "w") as f:
                        f.write(text + "\n")
                    seconds, mb = measure(args.mixc, model, opt, os.path.join(tmp, "out", f"{shape}{n}"))
                    xs.append(layers)
                    ys.append(seconds)
                    print(f"{shape:12} {opt:>3} {layers:>7} {seconds:9.2f} {mb:9.0f} {1000 * seconds / layers:9.2f}", flush=True)
                a, b, r2 = fit(xs, ys)
                print(f"{shape:12} {opt:>3} fit: {a:.2f} s + {1000 * b:.3f} ms/layer (r^2 = {r2:.4f})", flush=True)


if __name__ == "__main__":
    main()
