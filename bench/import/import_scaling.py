#!/usr/bin/env python3
"""Import time and peak memory of mix-import-onnx on large ONNX models.

Issue 13's target: a model of 1,000 nodes and 100 MB of weights imports in
under 10 s with a peak resident memory under 2x its weights. Builds such a
model with python3-onnx (an MLP whose nodes carry exporter-style module
paths: /layers.<i>/fc/MatMul, /layers.<i>/fc/Add, /layers.<i>/act/Relu;
random f32 weights, so nothing compresses or splats), then times, each in
its own process (wall time and peak RSS by wait4):

  peer     python3 -c 'onnx.load(model)': only parsing the protobuf, the
           floor any importer built on ONNX's library pays
  import   mix-import-onnx MODEL -o M.mlir --weights-out W.safetensors
  inline   mix-import-onnx MODEL -o M.mlir (every weight inline, hex)

and prints seconds, peak MB, the ratio to the peer's time, and peak RSS as
a multiple of the weight bytes, also without the tool's fixed cost (the
peak of importing a 3-node model). A benchmark, not a test.

  /usr/bin/python3 bench/import/import_scaling.py [--importer build/bin/mix-import-onnx]
      [--nodes 1000] [--megabytes 100] [--repeat 3]
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time



def build_model(nodes, megabytes, seed=7):
    """An MLP of nodes // 3 (MatMul, Add, Relu) layers holding `megabytes`
    of f32 weights in total; returns (model, node count, weight bytes)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    layers = max(1, nodes // 3)
    dim = max(8, int(math.sqrt(megabytes * 1e6 / 4 / layers)))
    rng = np.random.default_rng(seed)
    inits, graph_nodes = [], []
    prev = "x"
    for i in range(layers):
        w = (rng.standard_normal((dim, dim), dtype=np.float32) / np.float32(math.sqrt(dim)))
        b = rng.standard_normal(dim, dtype=np.float32) * np.float32(0.01)
        inits += [numpy_helper.from_array(w, f"layers.{i}.fc.weight"),
                  numpy_helper.from_array(b, f"layers.{i}.fc.bias")]
        graph_nodes += [
            helper.make_node("MatMul", [prev, f"layers.{i}.fc.weight"], [f"/layers.{i}/fc/MatMul_output_0"],
                             name=f"/layers.{i}/fc/MatMul"),
            helper.make_node("Add", [f"/layers.{i}/fc/MatMul_output_0", f"layers.{i}.fc.bias"],
                             [f"/layers.{i}/fc/Add_output_0"], name=f"/layers.{i}/fc/Add"),
            helper.make_node("Relu", [f"/layers.{i}/fc/Add_output_0"], [f"/layers.{i}/act/Relu_output_0"],
                             name=f"/layers.{i}/act/Relu"),
        ]
        prev = f"/layers.{i}/act/Relu_output_0"
    graph = helper.make_graph(
        graph_nodes, "import_scaling",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, dim])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, dim])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="import_scaling")
    weight_bytes = sum(t.ByteSize() for t in inits)
    return model, len(graph_nodes), weight_bytes


def write_model(path, nodes, megabytes):
    """Runs in a child process (see main)."""
    import onnx
    model, count, weight_bytes = build_model(nodes, megabytes)
    onnx.save(model, path)
    print(count, weight_bytes)


def run(cmd):
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd[0]} failed: {err}")
    return seconds, usage.ru_maxrss / 1024.0  # MB


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--importer", default=os.path.join(here, "..", "..", "build", "bin", "mix-import-onnx"))
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--megabytes", type=float, default=100.0)
    p.add_argument("--repeat", type=int, default=3, help="runs per case; the median is reported")
    p.add_argument("--write", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.write:
        write_model(args.write, args.nodes, args.megabytes)
        return
    # The model is built by a child: a forked child's peak RSS includes the
    # parent's pages at fork time, so the parent must stay small.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        out = subprocess.run([sys.executable, __file__, "--write", path, "--nodes", str(args.nodes),
                              "--megabytes", str(args.megabytes)],
                             check=True, capture_output=True, text=True).stdout.split()
        nodes, weight_bytes = int(out[0]), int(out[1])
        weights_mb = weight_bytes / 2**20
        print(f"model: {nodes} nodes, {weights_mb:.1f} MiB of f32 weights, "
              f"file {os.path.getsize(path) / 2**20:.1f} MiB")
        # The tool's fixed cost: an import of a 3-node model (the shared
        # libraries, libMLIR's relocations and registrations, the context).
        empty = os.path.join(tmp, "empty.onnx")
        subprocess.run([sys.executable, __file__, "--write", empty, "--nodes", "3",
                        "--megabytes", "0.001"], check=True, capture_output=True)
        _, base_mb = run([args.importer, empty, "-o", os.path.join(tmp, "empty.mlir")])
        print(f"baseline: importing a 3-node model peaks at {base_mb:.0f} MiB")
        cases = [
            ("peer", [sys.executable, "-c", f"import onnx; onnx.load({path!r})"]),
            ("import", [args.importer, path, "-o", os.path.join(tmp, "m.mlir"),
                        "--weights-out", os.path.join(tmp, "w.safetensors")]),
            ("inline", [args.importer, path, "-o", os.path.join(tmp, "inline.mlir")]),
        ]
        print(f"{'case':8} {'seconds':>8} {'peak MiB':>9} {'x peer':>7} {'peak/weights':>13} "
              f"{'(peak-baseline)/weights':>24}")
        peer = None
        for name, cmd in cases:
            runs = sorted(run(cmd) for _ in range(args.repeat))
            seconds, mb = runs[len(runs) // 2]
            peer = peer or seconds
            extra = (mb - base_mb) / weights_mb if name != "peer" else float("nan")
            print(f"{name:8} {seconds:8.2f} {mb:9.0f} {seconds / peer:7.2f} {mb / weights_mb:13.2f} "
                  f"{extra:24.2f}", flush=True)


if __name__ == "__main__":
    main()
