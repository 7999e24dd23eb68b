# Builds the models of tests/lit/Import/composite-ops.test: ONNX ops that
# the importer writes as a few mix layers (good.onnx), and one model per
# condition they refuse, each node named.
import os
import sys

from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Inputs"))
import safetensors_file  # noqa: E402

out = sys.argv[1]
f = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))
node = helper.make_node


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    open(out + "/" + name + ".onnx", "wb").write(m.SerializeToString())


ints = lambda name, values: helper.make_tensor(name, TensorProto.INT64, [len(values)], values)

save("good",
     [node("PRelu", ["x", "slope"], ["p"], name="/b/prelu"),
      node("ThresholdedRelu", ["p"], ["t"], name="/b/thr", alpha=0.5),
      node("DepthToSpace", ["t"], ["d"], name="/b/d2s", blocksize=2, mode="CRD"),
      node("Tile", ["d", "reps"], ["y"], name="/b/tile")],
     [f("x", 1, 8, 2, 3)], [f("y", 1, 2, 4, 18)],
     [helper.make_tensor("slope", TensorProto.FLOAT, [8, 1, 1], [0.25] * 8),
      ints("reps", [1, 1, 1, 3])])
save("bad-prelu",
     [node("PRelu", ["x", "slope"], ["y"], name="/b/prelu")],
     [f("x", 2, 4), f("slope", 4, 1)], [f("y", 2, 4)])
save("bad-d2s",
     [node("DepthToSpace", ["x"], ["y"], name="/b/d2s", blocksize=2)],
     [f("x", 1, 6, 2, 2)], [f("y", 1, 1, 4, 4)])
save("bad-tile",
     [node("Tile", ["x", "reps"], ["y"], name="/b/tile"),
      node("GlobalMaxPool", ["x"], ["g"], name="/b/gmp")],
     [f("x", 2, 4), helper.make_tensor_value_info("reps", TensorProto.INT64, [2])],
     [f("y", 4, 8), f("g", 2, 4)])
# Trilu of a float tensor (ONNX's own cases are all int64): the lower
# triangle with k = 1, and a k computed at run time (refused).
save("trilu",
     [node("Trilu", ["x", "k"], ["y"], name="/b/tril", upper=0)],
     [f("x", 2, 3)], [f("y", 2, 3)], [ints("k", [1])])
save("bad-trilu",
     [node("Trilu", ["x", "k"], ["y"], name="/b/triu")],
     [f("x", 2, 3), helper.make_tensor_value_info("k", TensorProto.INT64, [])],
     [f("y", 2, 3)])
# Hardmax along the last axis, and IsNaN / IsInf (bool outputs).
save("hardmax",
     [node("Hardmax", ["x"], ["h"], name="/b/hardmax"),
      node("IsNaN", ["x"], ["n"], name="/b/isnan"),
      node("IsInf", ["x"], ["i"], name="/b/isinf"),
      node("IsInf", ["x"], ["p"], name="/b/ispinf", detect_negative=0)],
     [f("x", 2, 3)],
     [f("h", 2, 3)] + [helper.make_tensor_value_info(o, TensorProto.BOOL, [2, 3])
                       for o in ("n", "i", "p")])
save("bad-hardmax",
     [node("Hardmax", ["x"], ["h"], name="/b/hardmax", axis=0)],
     [f("x", "N", 3)], [f("h", "N", 3)])
# hardmax.onnx's input for mix-run: a tie, then NaN, -inf and 2.
safetensors_file.write(out + "/hardmax.inputs.safetensors", [
    ("input0", "F32", [2, 3],
     safetensors_file.floats([1, 3, 3, float("nan"), float("-inf"), 2]))])
# LRN over 4 channels with size 3: the squares padded by one channel on
# each side, three slices summed; a 2-D input is refused.
save("lrn",
     [node("LRN", ["x"], ["y"], name="/b/lrn", size=3, alpha=0.3, beta=0.5,
           bias=2.0)],
     [f("x", 1, 4, 2, 2)], [f("y", 1, 4, 2, 2)])
save("bad-lrn",
     [node("LRN", ["x"], ["y"], name="/b/lrn", size=3)],
     [f("x", 2, 4)], [f("y", 2, 4)])
