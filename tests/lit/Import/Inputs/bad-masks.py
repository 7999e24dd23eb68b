# Builds bad.onnx for tests/lit/Import/masks.test: nodes the importer must refuse, one each.
import sys

from onnx import TensorProto, helper, numpy_helper
import numpy as np

out = sys.argv[1]
f = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))
i64 = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.INT64, list(shape))
consts = [numpy_helper.from_array(np.array([-5], np.int64), "far"),
          numpy_helper.from_array(np.array([3, 4], np.int64), "shape34")]
nodes = [
    helper.make_node("Gather", ["x", "ids"], ["g1"], name="/g/computed", axis=1),
    helper.make_node("Gather", ["x", "far"], ["g2"], name="/g/range", axis=1),
    helper.make_node("Expand", ["x", "shape34"], ["e1"], name="/e/shape"),
    helper.make_node("Expand", ["x", "ids"], ["e2"], name="/e/computed"),
    helper.make_node("MaxPool", ["img"], ["p"], name="/p/ceil", kernel_shape=[2, 2],
                     strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1),
]
graph = helper.make_graph(
    nodes, "bad", [f("x", "batch", 4), i64("ids", "batch"), f("img", 1, 1, 5, 5)],
    [f("g1", "batch", "batch"), f("g2", "batch", 1), f("e1", "batch", 4),
     f("e2", "batch", 4), f("p", 1, 1, 3, 3)], consts)
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(out + "/bad.onnx", "wb").write(m.SerializeToString())
