//===- NetworkGenerator.h - synthetic mix networks for benchmarks ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_BENCH_COMPILER_NETWORKGENERATOR_H
#define MIXC_BENCH_COMPILER_NETWORKGENERATOR_H

#include <string>

namespace mix::bench {

/// Writes the source of a `mix.network` with `numLayers` layer ops spread
/// over stages of blocks nested `depth` deep. Precisions alternate between
/// f16, bf16 and inherited blocks; every fourth layer carries a layer or
/// property override, so resolution walks real hierarchies.
std::string generateNetwork(unsigned numLayers, unsigned depth = 4);

} // namespace mix::bench

#endif // MIXC_BENCH_COMPILER_NETWORKGENERATOR_H
