//===- StandaloneMain.cpp - Replays inputs without libFuzzer ---------------===//
//
// Part of AMK. Runs LLVMFuzzerTestOneInput once on each file named on the
// command line (directories: each regular file in them), so that the crash
// regressions run in every build, sanitized or not.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int runFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", p.c_str());
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
  return 0;
}

int main(int argc, char **argv) {
  int failures = 0, runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto &e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) {
          failures += runFile(e.path());
          ++runs;
        }
    } else {
      failures += runFile(p);
      ++runs;
    }
  }
  std::printf("fuzz replay: %d inputs, %d unreadable\n", runs, failures);
  return failures ? 1 : 0;
}
