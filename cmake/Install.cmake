#===-- Install.cmake - the installable mixc package ------------------------===#
#
# `cmake --install build --prefix PREFIX` installs mixc, mix-lint, mix-run, mix-bench,
# mix-calibrate, mixrt (static and shared) with its headers, its freestanding
# core (libmixrt_core.a, mixrt/core.h), and a CMake
# package (targets mixc::mixc, mixc::mixrt, ...) so that an app's build can do
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
set(MIXC_INSTALLED_TOOLS mixc mix-lint mix-run mix-calibrate mix-bench)
set_target_properties(${MIXC_INSTALLED_TOOLS} PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS ${MIXC_INSTALLED_TOOLS} mixrt mixrt_shared mixrt_core
  EXPORT mixcTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/include/mixrt"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
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
