//===- KVCache.cpp - amk-kv-cache -----------------------------------------===//
//
// Part of AMK. Turns a decoder's Concat(past, new) into a ScatterND into a
// cache at a run-time position (Passes.td has the contract), so that one
// static program serves every decode step of a context.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/Passes.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace amk {
#define GEN_PASS_DEF_KVCACHE
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

struct CachePair {
  BlockArgument past;
  Operation *concat;
  int64_t axis;
};

class KVCachePass : public amk::impl::KVCacheBase<KVCachePass> {
public:
  using KVCacheBase::KVCacheBase;

  static std::string nameOf(BlockArgument arg) {
    llvm::StringRef n = amk::onnx::getTensorName(arg);
    return n.empty() ? "input " + std::to_string(arg.getArgNumber()) : n.str();
  }

  /// The Concats that append to a graph input and are returned: the
  /// past/present pairs of an Optimum-style decoder.
  LogicalResult collect(func::FuncOp func, SmallVectorImpl<CachePair> &out) {
    Operation *ret = func.getBody().front().getTerminator();
    for (BlockArgument arg : func.getArguments()) {
      for (Operation *user : arg.getUsers()) {
        if (user->getName().getStringRef() != "onnx.Concat" ||
            user->getNumOperands() != 2 || user->getOperand(0) != arg ||
            !llvm::is_contained(user->getResult(0).getUsers(), ret))
          continue;
        auto past = dyn_cast<RankedTensorType>(arg.getType());
        auto added = dyn_cast<RankedTensorType>(user->getOperand(1).getType());
        auto present = dyn_cast<RankedTensorType>(user->getResult(0).getType());
        if (!past || !added || !present || !past.hasStaticShape() ||
            !added.hasStaticShape() || !present.hasStaticShape())
          return user->emitError()
                 << "amk-kv-cache needs static shapes (run amk-bind-shapes "
                    "first); '"
                 << nameOf(arg) << "' is " << arg.getType();
        int64_t rank = past.getRank();
        auto axisAttr = user->getAttrOfType<IntegerAttr>("axis");
        int64_t axis = axisAttr ? axisAttr.getInt() : 0;
        if (axis < 0)
          axis += rank;
        if (axis < 0 || axis >= rank)
          return user->emitError() << "Concat axis out of range";
        if (added.getDimSize(axis) != 1)
          return user->emitError()
                 << "amk-kv-cache rewrites a decode step of one token, but '"
                 << nameOf(arg) << "' is appended " << added.getDimSize(axis)
                 << " rows (a prefill runs the model as given)";
        if (!arg.hasOneUse())
          return user->emitError()
                 << "'" << nameOf(arg)
                 << "' has users besides the Concat that appends to it; "
                    "they would see the whole cache";
        out.push_back({arg, user, axis});
      }
    }
    return success();
  }

  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<CachePair> pairs;
      if (failed(collect(func, pairs)))
        return signalPassFailure();
      if (pairs.empty()) {
        func.emitError() << "amk-kv-cache found no graph input that a "
                            "Concat appends to and returns (past/present "
                            "keys and values)";
        return signalPassFailure();
      }
      for (BlockArgument arg : func.getArguments())
        if (amk::onnx::getTensorName(arg) == positionInput) {
          func.emitError() << "the model already has an input named '"
                           << positionInput << "'";
          return signalPassFailure();
        }
      rewrite(func, pairs);
      numCaches += pairs.size();
      amk::PassCounters::add(this, "caches", pairs.size(),
                             "past/present pairs turned into in-place cache "
                             "writes");
    }
  }

  void rewrite(func::FuncOp func, ArrayRef<CachePair> pairs) {
    MLIRContext *ctx = &getContext();
    auto i64 = IntegerType::get(ctx, 64);
    // The position input goes last, so the model's own inputs keep their
    // indices.
    unsigned posIndex = func.getNumArguments();
    NamedAttrList attrs;
    attrs.set(amk::onnx::kNameAttr, StringAttr::get(ctx, positionInput));
    (void)func.insertArgument(posIndex, RankedTensorType::get({1}, i64),
                              attrs.getDictionary(ctx), func.getLoc());
    Value pos = func.getArgument(posIndex);
    for (CachePair p : pairs) {
      p.past.setType(p.concat->getResult(0).getType());
      // The axis no longer holds the past length: a later binding by that
      // name must not apply to it.
      unsigned i = p.past.getArgNumber();
      if (auto params = func.getArgAttrOfType<ArrayAttr>(i, "onnx.dim_params");
          params && p.axis < (int64_t)params.size()) {
        SmallVector<Attribute> names(params.begin(), params.end());
        names[p.axis] = StringAttr::get(ctx, "cache_slots");
        func.setArgAttr(i, "onnx.dim_params", ArrayAttr::get(ctx, names));
      }
    }
    func.setFunctionType(
        FunctionType::get(ctx, func.getBody().front().getArgumentTypes(),
                          func.getFunctionType().getResults()));

    OpBuilder b(ctx);
    b.setInsertionPointToStart(&func.getBody().front());
    // pos * e_axis per index-tuple length, then base + that per shape of
    // the new rows: shared by every layer of the same shape.
    std::map<int64_t, Value> offsets;
    std::map<SmallVector<int64_t>, Value> indices;
    auto create = [&](Location loc, llvm::StringRef name, ValueRange operands,
                      Type type) {
      OperationState st(loc, name);
      st.addOperands(operands);
      st.addTypes(type);
      return b.create(st)->getResult(0);
    };
    for (const CachePair &p : pairs) {
      Location loc = p.concat->getLoc();
      auto added = cast<RankedTensorType>(p.concat->getOperand(1).getType());
      int64_t q = p.axis + 1;
      Value &off = offsets[q];
      if (!off) {
        amk::ref::Tensor unit(amk::ref::DataType::INT64, {q});
        auto *u = reinterpret_cast<int64_t *>(unit.raw());
        for (int64_t i = 0; i < q; ++i)
          u[i] = i == p.axis;
        Value unitV = amk::createConstant(b, loc, unit);
        off = create(loc, "onnx.Mul", {pos, unitV},
                     RankedTensorType::get({q}, i64));
      }
      SmallVector<int64_t> lead(added.getShape().take_front(q));
      Value &idx = indices[lead];
      if (!idx) {
        SmallVector<int64_t> shape(lead);
        shape.push_back(q);
        amk::ref::Tensor base(amk::ref::DataType::INT64, shape);
        auto *d = reinterpret_cast<int64_t *>(base.raw());
        int64_t n = 1;
        for (int64_t e : lead)
          n *= e;
        for (int64_t t = 0; t < n; ++t) {
          // The tuple of tuple number t, row-major over `lead`.
          int64_t rest = t;
          for (int64_t k = q - 1; k >= 0; --k) {
            d[t * q + k] = rest % lead[k];
            rest /= lead[k];
          }
        }
        Value baseV = amk::createConstant(b, loc, base);
        idx = create(loc, "onnx.Add", {baseV, off},
                     RankedTensorType::get(shape, i64));
      }
      OpBuilder at(p.concat);
      OperationState st(loc, "onnx.ScatterND");
      st.addOperands({p.past, idx, p.concat->getOperand(1)});
      st.addTypes(p.concat->getResult(0).getType());
      Operation *scatter = at.create(st);
      p.concat->getResult(0).replaceAllUsesWith(scatter->getResult(0));
      p.concat->erase();
    }
  }
};

} // namespace
