#===-- MixcAddModel.cmake - compile mix models in an app's build -----------===#
#
# mixc_add_model(<target> SOURCES model.mlir [more.mlir ...]
#                [POLICY policy.json] [WEIGHTS weights.safetensors]
#                [CALIBRATION calibration.json] [ENTRY network]
#                [OPTIONS extra mixc options ...])
#
# Compiles every model with `mixc` at build time (re-run when the model, the
# policy, the weights or the calibration file change) and makes <target> a
# static library of the object files. Linking <target> gives the app the
# generated headers (#include "<model>.h") and mixrt.
#
#===------------------------------------------------------------------------===#

function(mixc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 MIXC ""
    "POLICY;WEIGHTS;CALIBRATION;ENTRY" "SOURCES;OPTIONS")
  if(MIXC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "mixc_add_model(${target}): unknown arguments: ${MIXC_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT MIXC_SOURCES)
    message(FATAL_ERROR "mixc_add_model(${target}): SOURCES is required")
  endif()

  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/mixc_models/${target}")
  set(args)
  set(deps)
  foreach(kind POLICY WEIGHTS CALIBRATION)
    if(MIXC_${kind})
      get_filename_component(path "${MIXC_${kind}}" ABSOLUTE)
      if(NOT EXISTS "${path}")
        message(FATAL_ERROR
          "mixc_add_model(${target}): ${kind} file '${path}' does not exist")
      endif()
      string(TOLOWER "${kind}" option)
      list(APPEND args "--${option}=${path}")
      list(APPEND deps "${path}")
    endif()
  endforeach()
  if(MIXC_ENTRY)
    list(APPEND args "--entry=${MIXC_ENTRY}")
  endif()

  set(objects)
  set(headers)
  set(names)
  foreach(source IN LISTS MIXC_SOURCES)
    get_filename_component(model "${source}" ABSOLUTE)
    # The generated files are named after the model: <name>.o, <name>.h.
    get_filename_component(name "${source}" NAME_WLE)
    if(name IN_LIST names)
      message(FATAL_ERROR "mixc_add_model(${target}): two models are named "
        "'${name}' (the generated header is ${name}.h): rename one or put "
        "it in another mixc_add_model target")
    endif()
    list(APPEND names "${name}")
    add_custom_command(
      OUTPUT "${outdir}/${name}.o" "${outdir}/${name}.h"
      COMMAND mixc::mixc "${model}" -o "${outdir}/${name}" ${args}
              ${MIXC_OPTIONS}
      DEPENDS "${model}" ${deps} mixc::mixc
      COMMENT "mixc: compiling ${source}"
      VERBATIM)
    list(APPEND objects "${outdir}/${name}.o")
    list(APPEND headers "${outdir}/${name}.h")
  endforeach()
  set_source_files_properties(${objects} PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set_source_files_properties(${headers} PROPERTIES GENERATED TRUE)
  # The archive holds only mixc's objects, which have no source language:
  # CMake archives them with the tools of a language the app enabled (C, or
  # CXX in a C++-only project, which has no CMAKE_C_ARCHIVE_CREATE).
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set(linker_language C)
  elseif("CXX" IN_LIST languages)
    set(linker_language CXX)
  else()
    message(FATAL_ERROR "mixc_add_model(${target}): enable the C or CXX "
      "language first (project(... C) or project(... CXX))")
  endif()
  add_library(${target} STATIC ${objects} ${headers})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE ${linker_language})
  target_include_directories(${target} PUBLIC "${outdir}")
  # Generated code calls libm (exp, erf, tanh) and mixrt (checked numerics).
  target_link_libraries(${target} PUBLIC mixc::mixrt m)
  # mixrt is C++ (on Abseil): an app linked by the C driver needs the C++
  # standard library too (libstdc++, the toolchain of Debian's packages).
  if(NOT "CXX" IN_LIST languages)
    target_link_libraries(${target} PUBLIC stdc++)
  endif()
endfunction()
