# lit configuration for AMK's IR tests: one file per pass or feature,
# `RUN:` lines driving amk-opt / amk-translate, checked with FileCheck.
import os

import lit.formats

config.name = "AMK"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amk_obj_root, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.amk_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%node", config.node))
config.substitutions.append(("%amk_src", config.amk_src_root))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
