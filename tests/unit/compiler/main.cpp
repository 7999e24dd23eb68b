//===- main.cpp - Catch2 main of the compiler unit tests ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
