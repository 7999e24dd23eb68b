#!/usr/bin/env python3
"""End to end: every bundled example at each precision mix, compiled by mixc
to an object file and a C header, linked with mixrt into a C program, run,
and compared with the reference interpreter (mix-run) on the same weights
and inputs.

Precision mixes: each example as written (f16 blocks for the ResNet and the
transformer, int8 layers for the edge example, calibrated on generated
samples) and all-f32 (every block and layer precision clause removed, so the
network's f32 applies everywhere).

Bounds, relative to the largest |value| of each output:
  all-f32      1e-5   f32 arithmetic against the f64 reference
  f16 as written 2e-3 the reference rounds at the same casts (mix-run
               --lower-to=quantize) but accumulates in f64 where the
               compiled code uses f32 fma: results can differ by f32
               rounding before an f16 rounding, i.e. one f16 ulp (2^-11)
               now and then, and errors propagate through the stages
  int8 as written 1e-6 the reference reproduces quantization and the
               integer GEMMs bit for bit; only the f32-vs-f64 float
               layers differ (the edge input hits no quantization boundary)

usage: run_examples.py BUILD_DIR WORK_DIR
"""
import json
import math
import os
import re
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = ["resnet", "transformer", "edge_int8"]
BOUNDS = {"f32": 1e-5, "resnet": 2e-3, "transformer": 2e-3, "edge_int8": 1e-6}
F32, I32 = "F32", "I32"


class Lcg:
    def __init__(self, seed):
        self.state = seed

    def uniform(self):  # [-0.5, 0.5)
        self.state = (self.state * 6364136223846793005 +
                      1442695040888963407) % (1 << 64)
        return ((self.state >> 11) & 0xFFFFF) / float(0x100000) - 0.5


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, dtype, shape, values in tensors:
        fmt = "<%d%s" % (len(values), "f" if dtype == F32 else "i")
        data = struct.pack(fmt, *values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def parse_type(text):
    """'2x3x16xf32' -> ([2, 3, 16], 'F32')"""
    *dims, elem = text.split("x")
    return [int(d) for d in dims], {"f32": F32, "i32": I32}[elem]


def weights_of(model_text):
    rng = Lcg(0x2545F4914F6CDD1D)
    tensors = []
    for name, ty in re.findall(
            r'mix\.weight external "([^"]+)" : tensor<([0-9x]+x?f32)>', model_text):
        shape, dtype = parse_type(ty)
        count = math.prod(shape)
        fan_in = count // shape[0] if len(shape) > 1 else 1
        if len(shape) == 2:
            fan_in = shape[0]
        values = []
        for _ in range(count):
            v = rng.uniform() * 2.0 / math.sqrt(fan_in)
            values.append(f32(0.5 + abs(v) if name.endswith(".var") else v))
        tensors.append((name, dtype, shape, values))
    return tensors


def network_inputs(model_text):
    sig = re.search(r"mix\.network @(\w+) precision\([^)]*\) \(([^)]*)\)", model_text)
    return sig.group(1), [parse_type(t) for t in
                          re.findall(r"tensor<([0-9x]+x(?:f32|i32))>", sig.group(2))]


def make_inputs(arg_types, seed, samples=1):
    rng = Lcg(seed)
    tensors = []
    for i, (shape, dtype) in enumerate(arg_types):
        count = math.prod(shape) * samples
        if dtype == F32:
            values = [f32(math.sin(0.37 * k + seed) + 0.3 * rng.uniform())
                      for k in range(count)]
        else:  # labels and tokens: below every example's class/vocab count
            values = [int((rng.uniform() + 0.5) * 10) % 10 for _ in range(count)]
        full = [shape[0] * samples] + shape[1:] if samples > 1 else shape
        tensors.append(("input%d" % i, dtype, full, values))
    return tensors


def strip_precisions(model_text):
    """All-f32: drop every block and layer precision clause."""
    out = []
    for line in model_text.splitlines():
        if "mix.network" not in line:
            line = re.sub(r" precision\([^()]*\)", "", line)
        out.append(line)
    return "\n".join(out) + "\n"


def harness(header, name, inputs, work):
    """A C main() that reads each input from a raw file, runs the network and
    prints every output."""
    run = re.search(r"static inline mixrt_status_code %s_run\(([^)]*)\)" % name, header)
    params = [p.strip() for p in run.group(1).split(",")]
    sizes = []
    for decl in re.findall(r"mixc_memref_rank\d+ mixc_arg\d+ = \{(.*)\};", header):
        dims = re.search(r"\{([0-9, ]+)\}", decl)  # the sizes (rank 0: none)
        sizes.append(math.prod(int(d) for d in dims.group(1).split(",")) if dims else 1)
    lines = ['#include "model.h"', "#include <stdio.h>", "#include <stdlib.h>",
             "int main(void) {"]
    args, outputs = [], []
    for i, p in enumerate(params):
        ctype = p.replace("const", "").replace("*", "").split()[0]
        var = "b%d" % i
        lines.append("  %s *%s = calloc(%d, sizeof(%s));" % (ctype, var, sizes[i], ctype))
        if "const" in p:
            path = os.path.join(work, "input%d.bin" % i)
            lines.append('  { FILE *f = fopen("%s", "rb"); if (!f || fread(%s, sizeof(%s), %d, f) != %d) return 3; fclose(f); }'
                         % (path, var, ctype, sizes[i], sizes[i]))
        else:
            outputs.append((var, ctype, sizes[i]))
        args.append(var)
    lines.append("  mixrt_status_code s = %s_run(%s);" % (name, ", ".join(args)))
    lines.append('  if (s != MIXRT_STATUS_OK) { fprintf(stderr, "%s\\n", mixrt_last_error_message()); return 1; }')
    for j, (var, ctype, n) in enumerate(outputs):
        lines.append('  printf("output %d:");' % j)
        lines.append('  for (int i = 0; i < %d; ++i) printf(" %%.9g", (double)%s[i]);' % (n, var))
        lines.append('  printf("\\n");')
    lines.append("  return 0;\n}")
    return "\n".join(lines) + "\n"


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
    return result.stdout


def values_by_output(text, prefix):
    outs = []
    for line in text.splitlines():
        if line.startswith(prefix):
            outs.append([float(v) for v in line.split(":", 1)[1].split()])
    return outs


def main(build, work):
    bindir = os.path.join(build, "bin")
    absl = run(["pkg-config", "--libs", "absl_status", "absl_statusor",
                "absl_strings"]).split()
    failures = 0
    for example in EXAMPLES:
        text = open(os.path.join(ROOT, "examples", example + ".mlir")).read()
        for variant in ["as-written", "f32"]:
            dir = os.path.join(work, example, variant)
            os.makedirs(dir, exist_ok=True)
            model = os.path.join(dir, "model.mlir")
            open(model, "w").write(text if variant == "as-written" else strip_precisions(text))
            weights = os.path.join(dir, "weights.safetensors")
            write_safetensors(weights, weights_of(text))
            name, arg_types = network_inputs(text)
            inputs = make_inputs(arg_types, seed=3)
            write_safetensors(os.path.join(dir, "inputs.safetensors"), inputs)
            for i, (_, dtype, _, values) in enumerate(inputs):
                with open(os.path.join(dir, "input%d.bin" % i), "wb") as f:
                    f.write(struct.pack("<%d%s" % (len(values), "f" if dtype == F32 else "i"), *values))
            extra = []
            if re.search(r"precision\([^)]*int8", open(model).read()):
                samples = os.path.join(dir, "samples.safetensors")
                write_safetensors(samples, make_inputs(arg_types, seed=11, samples=16))
                calibration = os.path.join(dir, "calibration.json")
                run([os.path.join(bindir, "mix-calibrate"), model, "--weights", weights,
                     "--samples", samples, "-o", calibration])
                extra = ["--calibration=" + calibration]
            run([os.path.join(bindir, "mixc"), model, "-o", os.path.join(dir, "model"),
                 "--weights=" + weights] + extra)
            header = open(os.path.join(dir, "model.h")).read()
            open(os.path.join(dir, "main.c"), "w").write(harness(header, name, inputs, dir))
            exe = os.path.join(dir, "main")
            run(["cc", "-std=c99", "-O1", "-I", dir, "-I", os.path.join(ROOT, "runtime", "include"),
                 os.path.join(dir, "main.c"), os.path.join(dir, "model.o"),
                 os.path.join(build, "runtime", "libmixrt.a")] + absl + ["-lstdc++", "-lm", "-o", exe])
            got = values_by_output(run([exe]), "output")
            ref = values_by_output(run([os.path.join(bindir, "mix-run"), model, "--weights", weights,
                                        "--inputs", os.path.join(dir, "inputs.safetensors"),
                                        "--lower-to=quantize"] + extra), "sample 0 output")
            bound = BOUNDS["f32" if variant == "f32" else example]
            worst = 0.0
            if len(got) != len(ref) or any(len(a) != len(b) for a, b in zip(got, ref)):
                print("%-12s %-10s output count/shape mismatch" % (example, variant))
                failures += 1
                continue
            if not all(math.isfinite(v) for out in got + ref for v in out):
                print("%-12s %-10s non-finite output: FAILED" % (example, variant))
                failures += 1
                continue
            for a, b in zip(got, ref):
                scale = max(max(abs(v) for v in b), 1e-30)
                worst = max(worst, max(abs(x - y) for x, y in zip(a, b)) / scale)
            ok = worst <= bound
            failures += not ok
            print("%-12s %-10s worst error %.3g of the largest value (bound %g): %s"
                  % (example, variant, worst, bound, "ok" if ok else "FAILED"))
    if failures:
        sys.exit("%d end-to-end comparison(s) failed" % failures)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
