//===- RuntimeTestUtils.h - What the runtime tests share --------*- C++ -*-===//
//
// Part of AMK. The tests of test/runtime build their programs by hand
// (runtime/support/ProgramBuilder.h) and run them through these helpers.
// They link only the runtime, so scripts/tsan.sh compiles them directly.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TEST_RUNTIME_RUNTIMETESTUTILS_H
#define AMK_TEST_RUNTIME_RUNTIMETESTUTILS_H

#include "ProgramBuilder.h"
#include "amk/runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace amk::rt::test {

struct Session {
  amk_rt_session *s = nullptr;
  int create(const amk_rt_program &p, amk_rt_options o = {}) {
    return amk_rt_session_create(&p, &o, &s);
  }
  ~Session() { amk_rt_session_destroy(s); }
  std::string error() const { return amk_rt_error_message(s); }
};

/// Creates a session for the program and runs it once: `ins` and `outs`
/// in the program's input and output order.
inline void runProgram(ProgramBuilder &b, std::vector<const void *> ins,
                       std::vector<void *> outs) {
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  ASSERT_EQ(amk_rt_run(s.s, ins.data(), outs.data()), AMK_RT_OK) << s.error();
}

} // namespace amk::rt::test

#endif // AMK_TEST_RUNTIME_RUNTIMETESTUTILS_H
