//===- TestPerturbConstants.cpp - amk-test-perturb-constants --------------===//
//
// Part of AMK. A testing pass: it changes the first float constant so that
// the differential suites can show they catch a wrong weight.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"

namespace amk {
#define GEN_PASS_DEF_TESTPERTURBCONSTANTS
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

/// Testing only: see Passes.td.
class TestPerturbConstantsPass
    : public amk::impl::TestPerturbConstantsBase<TestPerturbConstantsPass> {
public:
  using TestPerturbConstantsBase::TestPerturbConstantsBase;

  void runOnOperation() override {
    getOperation().walk([&](amk::onnx::ConstantOp c) {
      auto t = amk::getConstantTensor(c.getResult());
      if (!t || t->dtype() != amk::ref::DataType::FLOAT || t->numel() == 0)
        return WalkResult::advance();
      for (int64_t i = 0; i < t->numel(); ++i)
        t->setDouble(i, t->getDouble(i) + delta);
      OpBuilder b(c);
      c.getResult().replaceAllUsesWith(
          amk::createConstant(b, c.getLoc(), *t));
      c.erase();
      return WalkResult::interrupt();
    });
  }
};

} // namespace
