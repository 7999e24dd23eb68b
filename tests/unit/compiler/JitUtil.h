//===- JitUtil.h - JIT-compiling mix models in tests ----------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shared by the execution tests: lowering a module through the mixc
// pipeline and JIT-compiling it with MLIR's ExecutionEngine (mixrt's
// checked-numerics entry points are registered with the JIT), memref views
// of host buffers, and deterministic weights for the bundled examples.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_TESTS_UNIT_COMPILER_JITUTIL_H
#define MIXC_TESTS_UNIT_COMPILER_JITUTIL_H

#include "compiler/Interpreter.h"
#include "compiler/Pipeline.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace mix::test {

/// A context with every dialect the pipeline needs; initialises the native
/// target once.
struct Jit {
  Jit();
  mlir::MLIRContext context;
};

/// Lowers `module` with `options` and JITs it (-O2). Fails the test on error.
std::unique_ptr<mlir::ExecutionEngine>
compile(mlir::ModuleOp module, const MixPipelineOptions &options = {});

/// A copy of `module` lowered through the `quantize` phase (mix-insert-casts,
/// mix-quantize): what the interpreter emulates exactly. Fails the test on
/// error.
mlir::OwningOpRef<mlir::ModuleOp> quantizedCopy(mlir::ModuleOp module);

/// Parses `source`, lowers it and JITs it.
std::unique_ptr<mlir::ExecutionEngine>
compile(mlir::MLIRContext &context, llvm::StringRef source,
        const MixPipelineOptions &options = {});

/// A row-major memref descriptor of `data`.
template <typename T, int N>
StridedMemRefType<T, N> view(T *data, std::array<int64_t, N> shape) {
  StridedMemRefType<T, N> m;
  m.basePtr = m.data = data;
  m.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = shape[i];
    m.strides[i] = stride;
    stride *= shape[i];
  }
  return m;
}

/// A rank-0 memref descriptor of `*data`.
template <typename T> StridedMemRefType<T, 0> scalarView(T *data) {
  StridedMemRefType<T, 0> m;
  m.basePtr = m.data = data;
  m.offset = 0;
  return m;
}

/// The bits of an f32.
uint32_t bits(float f);

/// The text of examples/<name>.
std::string readExample(llvm::StringRef name);

/// Deterministic weights for every external reference, scaled by fan-in so
/// activations stay O(1); batch-norm variances positive; f32-representable.
WeightMap makeWeights(mlir::ModuleOp module);

/// Replaces external references by the same data inline.
void inlineWeights(mlir::ModuleOp module, const WeightMap &weights);

/// Removes every block, layer and property precision override, so the whole
/// network runs at its f32 default.
void stripOverrides(mlir::ModuleOp module);

} // namespace mix::test

#endif // MIXC_TESTS_UNIT_COMPILER_JITUTIL_H
