# -*- Python -*-
# lit configuration of the mixc FileCheck suite.

import os

import lit.formats

config.name = "mixc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mixc_obj_root, "tests", "lit")

# Tools: ours first, then LLVM's FileCheck, not, count.
config.environment["PATH"] = os.pathsep.join(
    [config.mixc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
config.substitutions.append(("%mixc_src", config.mixc_src_root))
# The programs of examples/dsl (each prints its network).
config.substitutions.append(
    ("%dsl_examples", os.path.join(config.mixc_obj_root, "examples", "dsl")))


def _mixrt_abi_version():
    """MIXRT_API_VERSION of runtime/include/mixrt/mixrt.h (mixc --version)."""
    import re
    header = os.path.join(config.mixc_src_root, "runtime", "include", "mixrt",
                          "mixrt.h")
    with open(header, encoding="utf-8") as f:
        match = re.search(r"^#define MIXRT_API_VERSION (\d+)$", f.read(), re.M)
    return match.group(1)


config.substitutions.append(("%mixrt_abi", _mixrt_abi_version()))
config.substitutions.append(("%examples", os.path.join(config.mixc_src_root, "examples")))

# mixc's end-to-end tests compile C against the generated headers and
# mixrt's, then link the objects with the static mixrt, which is C++ on
# Abseil: %mixrt_deps holds the rest of the link line. They require the
# `c-toolchain` feature.
import shutil
import subprocess
import sys

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%mixrt_include", os.path.join(config.mixc_src_root, "runtime", "include")))
config.substitutions.append(
    ("%mixrt_lib", os.path.join(config.mixc_obj_root, "runtime", "libmixrt.a")))
# The freestanding core alone (C, no Abseil or C++): models compiled with
# mixc --freestanding link it and libm only.
config.substitutions.append(
    ("%mixrt_core_lib",
     os.path.join(config.mixc_obj_root, "runtime", "core", "libmixrt_core.a")))


def _mixrt_link_deps():
    try:
        absl = subprocess.run(
            ["pkg-config", "--libs", "absl_status", "absl_statusor", "absl_strings"],
            capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return absl + " -lstdc++ -lm"



# Pass statistics are compiled out of NDEBUG (Release) builds of LLVM/MLIR
# users (llvm/ADT/Statistic.h: LLVM_ENABLE_STATS). Tests of the counters
# require the `pass-statistics` feature, probed once here.
import subprocess


def _mix_opt_has_pass_statistics():
    probe = (
        "mix.network @n precision(f32) (%x: tensor<1xf32>) {\n"
        "  %0 = mix.relu %x : (tensor<1xf32>) -> tensor<1xf32>\n"
        "  mix.return\n"
        "}\n"
    )
    try:
        result = subprocess.run(
            [os.path.join(config.mixc_tools_dir, "mix-opt"),
             "--mix-resolve-precision", "--mlir-pass-statistics",
             "-o", os.devnull],
            input=probe, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "Number of layers resolved" in result.stderr


if _mix_opt_has_pass_statistics():
    config.available_features.add("pass-statistics")

_mixrt_deps = _mixrt_link_deps()

# A sanitized build (-DMIXC_SANITIZE=ON, scripts/sanitize-compiler.sh): the
# tools and libmixrt.a run under ASan + UBSan (the tools carry the ASan
# defaults of that build, support/SanitizerOptions.cpp). Leaks are reported;
# leaks of LLVM/MLIR globals would be suppressed one by one (fuzz/lsan.supp).
# Options already in the environment come last and win.
if getattr(config, "mixc_sanitize", False):
    # Tests that cannot run under the sanitizers (LD_PRELOAD) say
    # `UNSUPPORTED: sanitize`.
    config.available_features.add("sanitize")

    def _prepend_options(var, options):
        given = config.environment.get(var, "")
        config.environment[var] = ":".join(o for o in (options, given) if o)

    _prepend_options("ASAN_OPTIONS", "detect_leaks=1")
    _prepend_options("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    _prepend_options(
        "LSAN_OPTIONS",
        "suppressions=" + os.path.join(config.mixc_src_root, "fuzz", "lsan.supp"))
    # Programs linking the instrumented libmixrt.a need the sanitizer runtimes.
    if _mixrt_deps is not None:
        _mixrt_deps += " -fsanitize=address,undefined"
config.substitutions.append(("%mixrt_deps", _mixrt_deps or ""))
if _mixrt_deps is not None and shutil.which("cc") and shutil.which("c++"):
    config.available_features.add("c-toolchain")
# An x86-64 Linux host (objects mixc builds for the host run there).
import platform
if platform.machine() in ("x86_64", "AMD64") and sys.platform.startswith("linux"):
    config.available_features.add("x86_64-linux-host")

# Cross-compilation (Driver/freestanding.test): Debian's clang-22 and
# ld.lld-22 build mixrt's freestanding core and link it with objects mixc
# compiled for a Cortex-M7 (thumbv7em-none-eabihf) and for AArch64 Linux.
# The `cross-toolchain` feature says that both compile for both targets.
# %cross_cc is clang-22 (no sysroot needed: the core and the generated
# headers only include <stddef.h> and <stdint.h>, which clang ships);
# %ld_lld is ld.lld-22.
def _find_tool(name, fallback):
    path = shutil.which(name)
    if path:
        return path
    path = os.path.join(config.llvm_tools_dir, fallback)
    return path if os.path.exists(path) else None


_cross_cc = _find_tool("clang-22", "clang")
_ld_lld = _find_tool("ld.lld-22", "ld.lld")


def _cross_toolchain_works():
    if not _cross_cc or not _ld_lld:
        return False
    try:
        for target in (["--target=thumbv7em-none-eabihf", "-mcpu=cortex-m7"],
                       ["--target=aarch64-linux-gnu"]):
            subprocess.run(
                [_cross_cc, *target, "-ffreestanding", "-x", "c", "-c", "-",
                 "-o", os.devnull],
                input="#include <stdint.h>\nint32_t f(void) { return 0; }\n",
                capture_output=True, text=True, timeout=60, check=True)
        subprocess.run([_ld_lld, "--version"], capture_output=True,
                       timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


if _cross_toolchain_works():
    config.available_features.add("cross-toolchain")
    config.substitutions.append(("%cross_cc", _cross_cc))
    config.substitutions.append(("%ld_lld", _ld_lld))

# ONNX import (tests/lit/Import): the test models are built at test time
# with Debian's python3-onnx (tests/onnx/make_models.py). %onnx_python is
# the first Python that imports onnx (lit may run under another Python, e.g.
# pyenv's); the `onnx` feature says that there is one and that the build has
# the importer (MIXC_ENABLE_ONNX).
def _onnx_python():
    for candidate in [sys.executable, "/usr/bin/python3"]:
        try:
            ok = subprocess.run([candidate, "-c", "import onnx, numpy"],
                                capture_output=True, timeout=120).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return candidate
    return None


_onnx_py = _onnx_python() if getattr(config, "mixc_onnx", False) else None
if _onnx_py:
    config.available_features.add("onnx")
elif getattr(config, "mixc_onnx", False):
    lit_config.warning("the ONNX importer is built but no Python imports onnx "
                       "(apt-get install python3-onnx): tests/lit/Import "
                       "is skipped")
config.substitutions.append(("%onnx_python", _onnx_py or "false"))
config.substitutions.append(
    ("%onnx_models", os.path.join(config.mixc_src_root, "tests", "onnx", "make_models.py")))
