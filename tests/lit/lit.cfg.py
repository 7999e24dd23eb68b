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
config.substitutions.append(("%examples", os.path.join(config.mixc_src_root, "examples")))
