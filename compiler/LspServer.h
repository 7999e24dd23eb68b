//===- LspServer.h - mix-lsp-server: an editor that knows mix ---*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The language server behind `mix-lsp-server`. It speaks the Language Server
// Protocol over stdio (LLVM's LSP transport, as MLIR's own servers do) and,
// for every open `mix` file, publishes
//   - parse and verifier errors, at the token they point to;
//   - precision-resolution errors;
//   - the precision policy's findings, as `mix-lint` reports them (the
//     policy given with --policy, else a `mix-policy.json` found in the
//     file's directory or one of its parents, else the built-in default);
// and answers hover (a layer's resolved precisions and who decided each,
// the `--explain` columns), go-to-definition and references of values
// (weights are `mix.weight` values, so their uses lead to them), and the
// outline (document symbols: the network, its blocks, their layers).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_LSPSERVER_H
#define MIXC_COMPILER_LSPSERVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace mix {

/// The name of the policy file looked up next to a model (then in each
/// parent directory) when --policy is not given.
inline constexpr const char *kPolicyFileName = "mix-policy.json";

/// Runs the server: command line in `args` (without the program name),
/// messages read from `in`, written to `out`. Returns the exit code: 0 after
/// a `shutdown` request and `exit`, 1 when the input ends without them,
/// 2 for bad usage.
int lspServerMain(llvm::ArrayRef<const char *> args, std::FILE *in,
                  llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace mix

#endif // MIXC_COMPILER_LSPSERVER_H
