#===-- Install.cmake - the installable mixc package ------------------------===#
#
# `cmake --install build --prefix PREFIX` installs mixc, mix-lint, mix-run, mix-bench,
# mix-calibrate, mixrt (static and shared) with its headers, its freestanding
# core (libmixrt_core.a, mixrt/core.h), the header-only C++ DSL (mix/dsl.h,
# target mixc::dsl), a pkg-config file for mixrt (LIBDIR/pkgconfig/mixrt.pc)
# and a CMake package (targets mixc::mixc, mixc::mixrt, ...) so that an
# app's build can do
#
#   find_package(mixc CONFIG REQUIRED)
#   mixc_add_model(my_model SOURCES model.mlir WEIGHTS model.safetensors)
#   target_link_libraries(my_app PRIVATE my_model)
#
#===------------------------------------------------------------------------===#

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MIXC_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/mixc")

# The tools link the shared LLVM/MLIR libraries of the system: keep their
# directory in the installed executables' RPATH.
set(MIXC_INSTALLED_TOOLS mixc mix-lint mix-lsp-server mix-run mix-calibrate mix-bench)
set_target_properties(${MIXC_INSTALLED_TOOLS} PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS ${MIXC_INSTALLED_TOOLS} mixrt mixrt_shared mixrt_core mixc_dsl
  EXPORT mixcTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/mixrt"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# mix/dsl.h only: mix/dsl_mlir.h needs the dialect library, which is not
# installed.
install(FILES "${PROJECT_SOURCE_DIR}/dsl/include/mix/dsl.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/mix")

# mixrt.pc: `pkg-config --cflags --libs mixrt` links the shared libmixrt.so
# (its Abseil and C++ dependencies are its own); `--static` adds what
# libmixrt.a needs (Requires.private, Libs.private), as mixc::mixrt does.
file(RELATIVE_PATH MIXRT_PC_TO_PREFIX
  "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" MIXRT_PC_TO_PREFIX "${MIXRT_PC_TO_PREFIX}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/mixrt.pc.in"
  "${PROJECT_BINARY_DIR}/mixrt.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/mixrt.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
install(EXPORT mixcTargets
  NAMESPACE mixc::
  DESTINATION "${MIXC_CMAKE_DIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/mixcConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/mixcConfig.cmake"
  INSTALL_DESTINATION "${MIXC_CMAKE_DIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/mixcConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/mixcConfig.cmake"
  "${PROJECT_BINARY_DIR}/mixcConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/MixcAddModel.cmake"
  DESTINATION "${MIXC_CMAKE_DIR}")
