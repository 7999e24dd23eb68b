# Builds bad-where.onnx for tests/lit/Import/where-mask.test:
# mask nodes the importer must refuse, one each; and bool-in.onnx,
# bool-out.onnx: a bool graph input and a bool graph output, which import.
import sys

from onnx import TensorProto, helper, numpy_helper
import numpy as np

out = sys.argv[1]
f = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))
b = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.BOOL, list(shape))
i64 = lambda name, *shape: helper.make_tensor_value_info(name, TensorProto.INT64, list(shape))
consts = [numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
nodes = [
    helper.make_node("Less", ["x", "zero"], ["lt"], name="/m/less"),
    helper.make_node("Not", ["lt"], ["nlt"], name="/m/not_less"),
    helper.make_node("Where", ["nlt", "x", "zero"], ["w1"], name="/m/where_not"),
    helper.make_node("Cast", ["x"], ["xi"], name="/m/to_int", to=TensorProto.INT64),
    helper.make_node("Equal", ["xi", "ids"], ["ieq"], name="/m/int_equal"),
    helper.make_node("Where", ["ieq", "x", "zero"], ["w3"], name="/m/where_int"),
]
graph = helper.make_graph(
    nodes, "bad", [f("x", "batch", 4), i64("ids", 4)],
    [f("w1", "batch", 4), f("w3", "batch", 4)], consts)
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(out + "/bad-where.onnx", "wb").write(m.SerializeToString())

graph = helper.make_graph(
    [helper.make_node("Where", ["c", "x", "x"], ["y"], name="/w")], "in",
    [b("c", 4), f("x", 4)], [f("y", 4)])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(out + "/bool-in.onnx", "wb").write(m.SerializeToString())

graph = helper.make_graph(
    [helper.make_node("Equal", ["x", "x"], ["y"], name="/eq")], "out",
    [f("x", 4)], [b("y", 4)])
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(out + "/bool-out.onnx", "wb").write(m.SerializeToString())
