//===- GroupElementwise.cpp - amk-group-elementwise -----------------------===//
//
// Part of AMK. amk-group-elementwise: elementwise chains into
// amk.fused_elementwise (Passes.td has the contract). It rewrites a match only
// when its inner values have no use outside it, so no value is computed twice.
//
//===----------------------------------------------------------------------===//

#include "transforms/fusion/FusionUtils.h"
#include "transforms/fusion/Passes.h"

#include "transforms/Utils/CostModel.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace amk {
#define GEN_PASS_DEF_GROUPELEMENTWISE
#include "transforms/fusion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk::fusion;
namespace onnx = amk::onnx;
namespace fused = amk::fused;

namespace {

class GroupElementwisePass
    : public amk::impl::GroupElementwiseBase<GroupElementwisePass> {
public:
  using GroupElementwiseBase::GroupElementwiseBase;

  static bool groupable(Operation *op) {
    if (!op || !isa<onnx::ONNXDialect>(op->getDialect()) ||
        isa<onnx::QuantizeLinearOp, onnx::DequantizeLinearOp>(op) ||
        amk::classifyOp(op) != amk::OpClass::Elementwise ||
        op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isa<func::FuncOp>(op->getParentOp()))
      return false;
    auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    // Small integer values are shape arithmetic: left as ONNX ops, they
    // fold away once a dynamic model's sizes are bound.
    bool shapeArithmetic = t && t.getRank() <= 1 &&
                           isa<IntegerType>(t.getElementType()) &&
                           t.hasStaticShape() && t.getNumElements() <= 64;
    if (!t || !t.hasStaticShape() || shapeArithmetic)
      return false;
    // A group runs as one float32 register program: integer, bool and
    // other float results run as single typed kernels, and so do ops
    // reading types the program does not load (float16, float64...).
    if (!t.getElementType().isF32())
      return false;
    for (Value v : op->getOperands()) {
      auto st = dyn_cast<ShapedType>(v.getType());
      Type e = st ? st.getElementType() : Type();
      if (st && !(e.isF32() || e.isSignlessInteger(64) ||
                  e.isSignlessInteger(32) || e.isSignlessInteger(8) ||
                  e.isUnsignedInteger(8) || e.isInteger(1)))
        return false;
    }
    // Where has its own kernel (WHERE), the program no select.
    return !isa<onnx::CastLikeOp, onnx::ModOp, onnx::WhereOp>(op);
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    // A producer with far fewer elements than a large consumer
    // (squeeze-excitation's Sigmoid on [1, C, 1, 1] before the Mul that
    // scales [1, C, H, W]) stays out of the consumer's group: inside, it
    // would be computed once per element of the broadcast, H x W times
    // over. Below 4096 elements a second kernel costs more than that.
    auto joinable = [](Operation *def, Operation *user) {
      int64_t d = cast<RankedTensorType>(def->getResult(0).getType())
                      .getNumElements(),
              u = cast<RankedTensorType>(user->getResult(0).getType())
                      .getNumElements();
      return u < 4096 || u < 16 * d;
    };
    auto groups = amk::singleUseGroups(ops, groupable, joinable);
    int64_t numGroupsMade = 0, moved = 0;
    for (const auto &group : groups) {
      if (static_cast<int64_t>(group.size()) < minSize)
        continue;
      if (succeeded(makeGroup(group))) {
        ++numGroupsMade;
        moved += group.size();
      }
    }
    numGroups = numGroupsMade;
    numGrouped = moved;
    amk::PassCounters::add(this, "groups", numGroupsMade,
                           "amk.fused_elementwise ops created");
    amk::PassCounters::add(this, "grouped", moved, "ops moved into groups");
  }

private:
  LogicalResult makeGroup(ArrayRef<Operation *> group) {
    llvm::SmallPtrSet<Operation *, 16> in(group.begin(), group.end());
    // The root: the one op whose result leaves the group.
    Operation *root = nullptr;
    for (Operation *op : group)
      for (Operation *user : op->getResult(0).getUsers())
        if (!in.contains(user)) {
          if (root && root != op)
            return failure();
          root = op;
        }
    if (!root)
      return failure();
    // Inputs: values from outside, constants and none excepted (cloned).
    SmallVector<Value> inputs;
    for (Operation *op : group)
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if ((def && in.contains(def)) ||
            isa_and_nonnull<onnx::ConstantOp, onnx::NoValueOp>(def) ||
            llvm::is_contained(inputs, v))
          continue;
        if (!isa<RankedTensorType>(v.getType()))
          return failure();
        inputs.push_back(v);
      }
    OpBuilder b(root);
    auto g = fused::FusedElementwiseOp::create(
        b, amk::fusedNodeLoc(group, root, root->getResult(0)),
        root->getResult(0).getType(), inputs);
    Block *body = new Block();
    g.getBody().push_back(body);
    IRMapping map;
    for (Value v : inputs)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    OpBuilder bb = OpBuilder::atBlockEnd(body);
    for (Operation *op : group) {
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            isa_and_nonnull<onnx::ConstantOp, onnx::NoValueOp>(def) &&
            !map.contains(v))
          map.map(v, bb.clone(*def)->getResult(0));
      bb.clone(*op, map);
    }
    fused::YieldOp::create(bb, root->getLoc(), map.lookup(root->getResult(0)));
    amk::emitPassRemark(this, g, amk::RemarkKind::Passed, "Grouped",
                        "grouped " + amk::describeMatch(group) +
                            " into amk.fused_elementwise");
    root->getResult(0).replaceAllUsesWith(g.getY());
    amk::eraseOps(group);
    return success();
  }
};

} // namespace
