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
# Linking a model's object file (amk-translate --amk-emit-object) with the
# runtime, as a build system does.
config.substitutions.append(("%cc", config.cc))
config.substitutions.append(("%amk_runtime_libs", config.amk_runtime_libs))
config.substitutions.append(("%amk_runtime_include", os.path.join(config.amk_src_root, "runtime", "include")))

# Hostile inputs must be refused in bounded time and memory: %bounded caps
# CPU time at 60 s and address space at 4 GiB (only CPU time in sanitizer
# builds, whose shadow memory needs terabytes of address space).
if config.sanitized:
    config.substitutions.append(("%bounded", "ulimit -t 60 &&"))
else:
    config.substitutions.append(("%bounded", "ulimit -t 60 -v 4194304 &&"))
# Sanitizer settings reach the tools the tests run.
for var in ("ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# amk-tune writes and amk-compile reads tuning records under the user's
# cache directory by default: the tests get their own, so a developer's
# records never change what a test sees.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")
