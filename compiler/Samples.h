//===- Samples.h - network inputs from safetensors files ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Sample inputs of a network (for calibration and reference runs) are read
// from a safetensors file: tensor "input<i>" holds the values of network
// argument i, either with the argument's shape (one sample), with one more
// leading dimension S (S samples), or with S times the batch dimension
// (samples stacked along dimension 0: [16, 1, 28, 28] is 16 samples of a
// [1, 1, 28, 28] input). The dtype is the argument's element type (F32 for
// f32, I32 for i32, ...). See docs/formats.md.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_SAMPLES_H
#define MIXC_COMPILER_SAMPLES_H

#include "compiler/Calibrate.h"
#include "compiler/ModelLoader.h"
#include "io/Safetensors.h"
#include "mlir/IR/OwningOpRef.h"

namespace mix {

/// The samples of `network` in `file`. Errors name the file, the tensor and
/// the problem (missing, dtype, shape, sample counts that differ).
llvm::Expected<std::vector<Sample>>
loadSamples(NetworkOp network, const io::SafetensorsFile &file);

/// loadModel() (with `loadOptions`: an ONNX model's precision plan)
/// followed, when `weightsPath` is not empty, by bindWeights()
/// from that safetensors file: what the reference tools (mix-run,
/// mix-calibrate) start with. A network with a dynamic batch is specialized
/// to one sample (specializeBatch), so a file of S stacked samples gives S
/// runs, as the compiled code computes them.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModelWithWeights(llvm::StringRef modelPath, llvm::StringRef weightsPath,
                     mlir::MLIRContext &context,
                     const ModelLoadOptions &loadOptions = {});

/// The network named `entry`, or the only network of `module` when `entry`
/// is empty. Errors list the networks there are.
llvm::Expected<NetworkOp> findNetwork(mlir::ModuleOp module,
                                      llvm::StringRef entry);

} // namespace mix

#endif // MIXC_COMPILER_SAMPLES_H
