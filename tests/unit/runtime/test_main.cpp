//===-- test_main.cpp - Catch2 main of the mixrt tests --------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
