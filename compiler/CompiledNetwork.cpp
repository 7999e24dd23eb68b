//===- CompiledNetwork.cpp - running the object mixc writes, in process ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompiledNetwork.h"
#include "compiler/LayerProfile.h"
#include "compiler/ModelLoader.h"
#include "compiler/Samples.h"
#include "mixrt/mixrt.h"
#include "mixrt/ukernel.h"
#include "support/Error.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstring>

using namespace mlir;
using namespace mix;

size_t mix::elementBytes(const HeaderTensor &t) {
  if (t.cType == "double" || t.cType == "int64_t")
    return 8;
  if (t.cType == "float" || t.cType == "int32_t")
    return 4;
  if (t.cType == "uint16_t" || t.cType == "int16_t")
    return 2;
  return 1;
}

namespace {

/// `NAME_WORKSPACE_SIZE ((size_t)Nu)` of the generated header.
std::optional<uint64_t> headerWorkspaceSize(llvm::StringRef header,
                                            llvm::StringRef network) {
  std::string key = ("#define " + network + "_WORKSPACE_SIZE ((size_t)").str();
  size_t at = header.find(key);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  uint64_t size = 0;
  if (header.substr(at + key.size()).consumeInteger(10, size))
    return std::nullopt;
  return size;
}

/// A memref descriptor of rank N as MLIR lays it out: two pointers, the
/// offset, N sizes and N strides (row-major, contiguous).
std::vector<int64_t> makeDescriptor(void *data, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> d(3 + 2 * shape.size());
  std::memcpy(&d[0], &data, sizeof(void *));
  std::memcpy(&d[1], &data, sizeof(void *));
  d[2] = 0;
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  return d;
}

constexpr size_t kMaxArgs = 17; // 16 inputs and outputs + the workspace

/// Calls the C interface `fn` with the descriptor pointers `a`
/// (1 to kMaxArgs of them), through a pointer of exactly that arity.
void callEntry(void *fn, llvm::ArrayRef<void *> a) {
  using P = void *;
  auto at = [&](size_t i) { return i < a.size() ? a[i] : nullptr; };
  switch (a.size()) {
#define MIXC_CALL(...) reinterpret_cast<void (*)(__VA_ARGS__)>(fn)
  case 1:
    MIXC_CALL(P)(at(0));
    return;
  case 2:
    MIXC_CALL(P, P)(at(0), at(1));
    return;
  case 3:
    MIXC_CALL(P, P, P)(at(0), at(1), at(2));
    return;
  case 4:
    MIXC_CALL(P, P, P, P)(at(0), at(1), at(2), at(3));
    return;
  case 5:
    MIXC_CALL(P, P, P, P, P)(at(0), at(1), at(2), at(3), at(4));
    return;
  case 6:
    MIXC_CALL(P, P, P, P, P, P)(at(0), at(1), at(2), at(3), at(4), at(5));
    return;
  case 7:
    MIXC_CALL(P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6));
    return;
  case 8:
    MIXC_CALL(P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
    return;
  case 9:
    MIXC_CALL(P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8));
    return;
  case 10:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9));
    return;
  case 11:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10));
    return;
  case 12:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11));
    return;
  case 13:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11), at(12));
    return;
  case 14:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11), at(12), at(13));
    return;
  case 15:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11), at(12), at(13), at(14));
    return;
  case 16:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11), at(12), at(13), at(14), at(15));
    return;
  case 17:
    MIXC_CALL(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)
    (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9),
     at(10), at(11), at(12), at(13), at(14), at(15), at(16));
    return;
#undef MIXC_CALL
  default:
    llvm_unreachable("CompiledNetwork::compile bounds the arity");
  }
}

} // namespace

CompiledNetwork::~CompiledNetwork() = default;

llvm::Expected<std::unique_ptr<CompiledNetwork>>
CompiledNetwork::compile(CompileOptions options, llvm::StringRef entry,
                         llvm::raw_ostream &diagnostics) {
  std::unique_ptr<CompiledNetwork> net(new CompiledNetwork());

  // The signature, as the header presents it.
  MLIRContext context;
  loadMixDialects(context);
  auto module = loadModel(options.modelPath, context);
  if (!module)
    return module.takeError();
  llvm::Expected<NetworkOp> network = findNetwork(**module, entry);
  if (!network)
    return network.takeError();
  std::string name = network->getSymName().str();
  llvm::Expected<std::vector<NetworkSignature>> signatures =
      collectNetworkSignatures(**module);
  if (!signatures)
    return signatures.takeError();
  for (NetworkSignature &s : *signatures)
    if (s.name == name)
      net->sig = std::move(s);
  size_t numArgs = net->sig.inputs.size() + net->sig.outputs.size() + 1;
  if (numArgs > kMaxArgs)
    return makeError("network @" + name + " has " + llvm::Twine(numArgs - 1) +
                     " inputs and outputs; at most " +
                     llvm::Twine(kMaxArgs - 1) + " can be run in process");

  // mixc into a temporary directory, removed on every path.
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("mixc-run", dir))
    return makeError("cannot create a temporary directory: " + ec.message());
  struct RemoveDir {
    std::string path;
    ~RemoveDir() { llvm::sys::fs::remove_directories(path); }
  } removeDir{dir.str().str()};
  options.outputStem = (dir + "/model").str();
  options.emit = EmitKind::object;
  options.entries = {name};
  auto start = std::chrono::steady_clock::now();
  if (int code = runMixc(options, llvm::nulls(), diagnostics))
    return makeError(code == kMixcUsage ? "mixc: bad options"
                                        : "mixc could not compile the model");
  net->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto object = llvm::MemoryBuffer::getFile(dir + "/model.o");
  auto header = llvm::MemoryBuffer::getFile(dir + "/model.h");
  if (!object || !header)
    return makeError("mixc wrote no object and header");
  std::optional<uint64_t> ws =
      headerWorkspaceSize((*header)->getBuffer(), name);
  if (!ws)
    return makeError("no workspace size for @" + name + " in the header");
  net->workspace = *ws;

  // Load the object; mixrt's symbols come from this process (mixrt may be
  // linked statically, so they are given explicitly), the C library's
  // through the process's dynamic symbols.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  net->jit = std::move(*jit);
  llvm::orc::JITDylib &dylib = net->jit->getMainJITDylib();
  llvm::orc::SymbolMap runtime;
  for (const RuntimeSymbol &symbol : generatedCodeRuntimeSymbols())
    runtime[net->jit->getExecutionSession().intern(symbol.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(symbol.address),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(runtime)))
    return std::move(e);
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      net->jit->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  dylib.addGenerator(std::move(*process));
  if (llvm::Error e = net->jit->addObjectFile(std::move(*object)))
    return std::move(e);
  auto symbol = net->jit->lookup("_mlir_ciface_mixc_net_" + name);
  if (!symbol)
    return symbol.takeError();
  net->entry = symbol->toPtr<void *>();
  return std::move(net);
}

CompiledNetwork::Call CompiledNetwork::prepare(llvm::ArrayRef<void *> buffers,
                                               int64_t batch,
                                               void *workspacePtr) const {
  Call call;
  call.entry = entry;
  int64_t samples = sig.dynamicBatch ? batch : 1;
  call.descriptors.resize(samples);
  call.args.resize(samples);
  for (int64_t s = 0; s < samples; ++s) {
    size_t index = 0;
    for (const auto *list : {&sig.inputs, &sig.outputs})
      for (const HeaderTensor &t : *list) {
        size_t perCall = elementBytes(t);
        for (int64_t d : t.shape)
          perCall *= d;
        auto *base = static_cast<uint8_t *>(buffers[index++]) +
                     (t.batched ? s * perCall : 0);
        call.descriptors[s].push_back(makeDescriptor(base, t.shape));
      }
    int64_t wsShape[] = {static_cast<int64_t>(workspace)};
    call.descriptors[s].push_back(makeDescriptor(workspacePtr, wsShape));
    for (std::vector<int64_t> &d : call.descriptors[s])
      call.args[s].push_back(d.data());
  }
  return call;
}

void CompiledNetwork::Call::operator()() const {
  for (const std::vector<void *> &sample : args)
    callEntry(entry, sample);
}

llvm::ArrayRef<RuntimeSymbol> mix::generatedCodeRuntimeSymbols() {
  static const RuntimeSymbol symbols[] = {
      {"mixrt_check_fail", reinterpret_cast<void *>(&mixrt_check_fail)},
      {"mixrt_ukernel_gemm_f32",
       reinterpret_cast<void *>(&mixrt_ukernel_gemm_f32)},
      {"mixrt_ukernel_gemm_s8s8s32",
       reinterpret_cast<void *>(&mixrt_ukernel_gemm_s8s8s32)},
      {"mixrt_ukernel_gemm_s8s8f32",
       reinterpret_cast<void *>(&mixrt_ukernel_gemm_s8s8f32)},
      {"mixrt_ukernel_range_f32",
       reinterpret_cast<void *>(&mixrt_ukernel_range_f32)},
      {"mixrt_ukernel_quantize_f32_s8",
       reinterpret_cast<void *>(&mixrt_ukernel_quantize_f32_s8)},
      {"mixrt_ukernel_depthwise_f32",
       reinterpret_cast<void *>(&mixrt_ukernel_depthwise_f32)},
      {"mixrt_ukernel_conv2d_f32",
       reinterpret_cast<void *>(&mixrt_ukernel_conv2d_f32)},
      {"mixrt_ukernel_conv2d_grouped_f32",
       reinterpret_cast<void *>(&mixrt_ukernel_conv2d_grouped_f32)},
      {"mixrt_ukernel_conv2d_s8s8s32",
       reinterpret_cast<void *>(&mixrt_ukernel_conv2d_s8s8s32)},
      {"mixrt_ukernel_conv2d_s8_rescale",
       reinterpret_cast<void *>(&mixrt_ukernel_conv2d_s8_rescale)},
      {"mixrt_ukernel_depthwise_s8_rescale",
       reinterpret_cast<void *>(&mixrt_ukernel_depthwise_s8_rescale)},
      // Called only by code compiled with profile-layers.
      {"mixc_profile_begin", reinterpret_cast<void *>(&mixc_profile_begin)},
      {"mixc_profile_end", reinterpret_cast<void *>(&mixc_profile_end)},
  };
  return symbols;
}
