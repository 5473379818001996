//===- PassUtils.cpp - Helpers shared by AMK passes -----------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXNames.h"
#include "reference/Interpreter.h"
#include "translate/ONNXTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/TypeUtilities.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/StringSet.h"

#include <mutex>

using namespace mlir;

namespace amk {

bool isReadableConstant(Value v) {
  auto cst = v.getDefiningOp<onnx::ConstantOp>();
  if (!cst)
    return false;
  auto r = dyn_cast_or_null<DenseResourceElementsAttr>(cst.getValueAttr());
  if (r && r.getType().getElementType().isIntOrFloat()) {
    // What getRawBytes accepts: data of the type's size.
    auto type = cast<RankedTensorType>(r.getType());
    return lookupResourceElements(type, r.getRawHandle().getKey()) &&
           onnx::getDataType(type.getElementType()).has_value();
  }
  if (isa_and_nonnull<DenseElementsAttr>(cst.getValueAttr()))
    return onnx::getDataType(
               cast<ShapedType>(cst.getValueAttr().getType()).getElementType())
        .has_value();
  return getConstantTensor(v).has_value();
}

std::optional<ref::Tensor> getConstantTensor(Value v) {
  auto cst = v.getDefiningOp<onnx::ConstantOp>();
  if (!cst)
    return std::nullopt;
  Attribute a = cst.getValueAttr();
  if (!a)
    a = cst.getSparseValueAttr();
  if (auto e = dyn_cast_or_null<ElementsAttr>(a)) {
    auto t = ref::Tensor::fromAttr(e);
    if (!t) {
      llvm::consumeError(t.takeError());
      return std::nullopt;
    }
    return std::move(*t);
  }
  if (auto f = cst.getValueFloatAttr())
    return ref::Tensor::scalar(ref::DataType::FLOAT, f.getValueAsDouble());
  if (auto i = cst.getValueIntAttr())
    return ref::Tensor::fromInt64({i.getInt()}, {});
  if (auto fs = cst.getValueFloatsAttr()) {
    ref::Tensor t(ref::DataType::FLOAT, {static_cast<int64_t>(fs.size())});
    std::copy(fs.asArrayRef().begin(), fs.asArrayRef().end(),
              t.data<float>());
    return t;
  }
  if (auto is = cst.getValueIntsAttr())
    return ref::Tensor::fromInt64(is.asArrayRef(),
                                  {static_cast<int64_t>(is.size())});
  return std::nullopt;
}

bool isNone(Value v) { return isa<NoneType>(v.getType()); }

Value createConstant(OpBuilder &b, Location loc, const ref::Tensor &t,
                     size_t resourceThreshold) {
  ElementsAttr attr;
  bool blob = !t.isString() && t.dtype() != ref::DataType::BOOL &&
              t.dtype() != ref::DataType::INT4 &&
              t.dtype() != ref::DataType::UINT4 &&
              t.byteSize() > resourceThreshold;
  auto type = RankedTensorType::get(
      t.shape(),
      onnx::getElementType(b.getContext(), static_cast<int32_t>(t.dtype())));
  if (blob) {
    size_t align = std::max<size_t>(1, ref::elementSize(t.dtype()));
    attr = DenseResourceElementsAttr::get(
        type, "folded",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(t.raw(), t.byteSize()), align,
            /*dataIsMutable=*/false));
  } else {
    attr = t.toAttr(b.getContext());
  }
  return onnx::ConstantOp::create(
             b, loc, TypeRange{type}, ValueRange{},
             ArrayRef<NamedAttribute>{b.getNamedAttr("value", attr)})
      .getResult();
}

Type typeOfValue(const ref::RValue &v, MLIRContext *ctx) {
  if (v.isTensor()) {
    const ref::Tensor &t = v.getTensor();
    return RankedTensorType::get(
        t.shape(), onnx::getElementType(ctx, static_cast<int32_t>(t.dtype())));
  }
  if (v.isSequence() && !v.getSequence().empty())
    return onnx::SeqType::get(ctx, typeOfValue(v.getSequence().front(), ctx));
  return nullptr;
}

Value getNoneValue(OpBuilder &b, Location loc) {
  Block *block = b.getInsertionBlock();
  // The block's NoValue may come after the insertion point; it has no
  // operands, so it moves to the start, where it dominates every use.
  for (auto nv : block->getOps<onnx::NoValueOp>()) {
    if (&block->front() != nv.getOperation())
      nv->moveBefore(&block->front());
    return nv.getResult();
  }
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(block);
  return onnx::NoValueOp::create(b, loc, b.getNoneType()).getResult();
}

FoldResult foldOp(Operation *op, int64_t limit) {
  llvm::StringRef type = op->getName().stripDialect();
  if (op->getNumRegions() || isa<onnx::GenericOp, onnx::ConstantOp,
                                 onnx::NoValueOp, onnx::YieldOp>(op) ||
      !isa_and_nonnull<onnx::ONNXDialect>(op->getDialect()) ||
      type.starts_with("Random") || type == "Bernoulli" ||
      type == "Multinomial" || type == "Dropout" || op->getNumOperands() == 0)
    return FoldResult::NotFoldable;
  std::vector<ref::RValue> inputs;
  if (type == "Shape" || type == "Size") {
    auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!t || !t.hasStaticShape())
      return FoldResult::NotConstant;
    auto dt = onnx::getDataType(t.getElementType());
    if (!dt)
      return FoldResult::NotFoldable;
    // Shape and Size only read the input's shape.
    inputs.push_back(ref::RValue(ref::Tensor(*dt, t.getShape())));
  } else {
    int64_t total = 0;
    for (Value v : op->getOperands()) {
      if (isNone(v)) {
        inputs.push_back(ref::RValue::none());
        continue;
      }
      if (!v.getDefiningOp<onnx::ConstantOp>())
        return FoldResult::NotConstant;
      // Check the size before decoding the constant.
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (t && t.hasStaticShape() && total + t.getNumElements() > limit)
        return FoldResult::TooLarge;
      auto c = getConstantTensor(v);
      if (!c)
        return FoldResult::NotFoldable;
      total += c->numel();
      if (total > limit)
        return FoldResult::TooLarge;
      inputs.push_back(ref::RValue(std::move(*c)));
    }
  }
  auto out = ref::Interpreter::evaluate(op, inputs);
  if (failed(out))
    return FoldResult::Failed;
  for (auto [result, v] : llvm::zip(op->getResults(), *out)) {
    if (isa<NoneType>(result.getType()))
      continue;
    // Only tensors become constants (an empty optional is not `none`).
    if (!v.isTensor())
      return FoldResult::NotFoldable;
    if (v.getTensor().numel() > limit)
      return FoldResult::TooLarge;
    // The computed value must fit the declared type.
    auto declared = dyn_cast<TensorType>(result.getType());
    Type computed = typeOfValue(v, op->getContext());
    if (declared && computed) {
      auto c = cast<RankedTensorType>(computed);
      if (declared.getElementType() != c.getElementType())
        return FoldResult::Failed;
      if (declared.hasRank() &&
          failed(verifyCompatibleShape(declared.getShape(), c.getShape())))
        return FoldResult::Failed;
    }
  }
  OpBuilder b(op);
  for (auto [result, v] : llvm::zip(op->getResults(), *out)) {
    if (isa<NoneType>(result.getType()))
      continue;
    result.replaceAllUsesWith(createConstant(b, op->getLoc(), v.getTensor()));
  }
  op->erase();
  return FoldResult::Folded;
}

void updateSignaturesAndErase(ModuleOp module) {
  module.walk([](onnx::ConstantOp c) {
    if (c->use_empty())
      c->erase();
  });
  module.walk([](func::FuncOp func) {
    if (func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    SmallVector<Type> results(ret.getOperandTypes());
    if (results != SmallVector<Type>(func.getResultTypes()))
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getArgumentTypes(), results));
  });
}

void emitPassRemark(Pass *pass, Operation *op, RemarkKind kind,
                    llvm::StringRef name, const llvm::Twine &message) {
  auto opts = remark::RemarkOpts::name(name).category(pass->getArgument());
  if (auto fn = op->getParentOfType<func::FuncOp>())
    opts = opts.function(fn.getSymName());
  std::string text = message.str();
  switch (kind) {
  case RemarkKind::Passed:
    remark::passed(op->getLoc(), opts) << text;
    break;
  case RemarkKind::Missed:
    remark::missed(op->getLoc(), opts) << text;
    break;
  case RemarkKind::Analysis:
    remark::analysis(op->getLoc(), opts) << text;
    break;
  }
}

namespace {
struct CounterStore {
  std::mutex mutex;
  std::map<Pass *, std::map<std::string, std::pair<int64_t, std::string>>>
      counters;
};
CounterStore &store() {
  static CounterStore s;
  return s;
}
} // namespace

void PassCounters::add(Pass *pass, llvm::StringRef name, int64_t delta,
                       llvm::StringRef description) {
  std::lock_guard<std::mutex> lock(store().mutex);
  auto &entry = store().counters[pass][name.str()];
  entry.first += delta;
  if (!description.empty())
    entry.second = description.str();
}

std::map<std::string, std::pair<int64_t, std::string>>
PassCounters::take(Pass *pass) {
  std::lock_guard<std::mutex> lock(store().mutex);
  auto it = store().counters.find(pass);
  if (it == store().counters.end())
    return {};
  auto out = std::move(it->second);
  store().counters.erase(it);
  return out;
}

void PassCountersInstrumentation::runAfterPass(Pass *pass, Operation *) {
  auto counters = PassCounters::take(pass);
  std::string name = pass->getName().str();
  auto it = llvm::find_if(report, [&](auto &e) { return e.first == name; });
  if (it == report.end()) {
    report.emplace_back(name, decltype(report)::value_type::second_type{});
    it = std::prev(report.end());
  }
  for (auto &[key, entry] : counters) {
    auto &slot = it->second[key];
    slot.first += entry.first;
    slot.second = entry.second;
  }
}

PassCountersInstrumentation::~PassCountersInstrumentation() {
  std::string rule(77, '-');
  os << "===" << rule << "===\n"
     << "                         ... Pass statistics report ...\n"
     << "===" << rule << "===\n";
  for (auto &[name, counters] : report) {
    os << name << "\n";
    for (auto &[key, entry] : counters)
      os << "  (S) " << entry.first << " " << key
         << (entry.second.empty() ? "" : " - " + entry.second) << "\n";
  }
  os.flush();
}

Location fusedNodeLoc(ArrayRef<Operation *> ops, Operation *named,
                      Value result) {
  MLIRContext *ctx = named->getContext();
  SmallVector<Location> locs;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
  Builder b(ctx);
  auto node = onnx::NodeAttr::get(
      ctx, b.getStringAttr(onnx::getNodeName(named)),
      b.getArrayAttr({b.getStringAttr(onnx::getTensorName(result))}));
  return FusedLoc::get(ctx, locs, node);
}

void eraseOps(ArrayRef<Operation *> ops) {
  // Matches list their ops root last but not always in def-use order.
  SmallVector<Operation *> pending(ops.begin(), ops.end());
  for (bool progress = true; progress;) {
    progress = false;
    for (Operation *&op : pending)
      if (op && op->use_empty()) {
        op->erase();
        op = nullptr;
        progress = true;
      }
  }
}

DenseResourceElementsAttr lookupResourceElements(RankedTensorType type,
                                                 StringRef key) {
  MLIRContext *ctx = type.getContext();
  auto &interface = DenseResourceElementsHandle::getManagerInterface(ctx);
  DialectResourceBlobManager::BlobEntry *entry =
      interface.getBlobManager().lookup(key);
  if (!entry || !entry->getBlob())
    return nullptr;
  // int4 blobs hold two elements per byte, as ONNX's raw data does.
  uint64_t bits = type.getElementTypeBitWidth();
  uint64_t bytes = bits < 8 ? (type.getNumElements() * bits + 7) / 8
                            : type.getNumElements() * (bits / 8);
  if (entry->getBlob()->getData().size() != bytes)
    return nullptr;
  return DenseResourceElementsAttr::get(
      type, DenseResourceElementsHandle(
                entry, cast<BuiltinDialect>(interface.getDialect())));
}

DenseResourceElementsAttr setResourceElements(RankedTensorType type,
                                              StringRef key,
                                              AsmResourceBlob blob) {
  MLIRContext *ctx = type.getContext();
  auto &interface = DenseResourceElementsHandle::getManagerInterface(ctx);
  DialectResourceBlobManager::BlobEntry *entry =
      interface.getBlobManager().lookup(key);
  if (entry && (!entry->getBlob() || entry->getBlob()->getData().empty())) {
    entry->setBlob(std::move(blob));
    return DenseResourceElementsAttr::get(
        type, DenseResourceElementsHandle(
                  entry, cast<BuiltinDialect>(interface.getDialect())));
  }
  return DenseResourceElementsAttr::get(type, key, std::move(blob));
}

void releaseResource(DenseResourceElementsAttr attr) {
  DenseResourceElementsHandle handle = attr.getRawHandle();
  if (AsmResourceBlob *blob = handle.getBlob();
      blob && !blob->getData().empty())
    DenseResourceElementsHandle::getManagerInterface(attr.getContext())
        .getBlobManager()
        .update(handle.getKey(), AsmResourceBlob());
}

uint64_t releaseUnreferencedBlobs(MLIRContext *ctx,
                                  ArrayRef<Operation *> live) {
  llvm::StringSet<> used;
  auto visit = [&](Attribute a) {
    if (a)
      a.walk([&](DenseResourceElementsAttr r) {
        used.insert(r.getRawHandle().getKey());
      });
  };
  for (Operation *root : live)
    root->walk([&](Operation *op) {
      visit(op->getPropertiesAsAttribute());
      visit(op->getDiscardableAttrDictionary());
    });
  DialectResourceBlobManager &manager =
      DenseResourceElementsHandle::getManagerInterface(ctx).getBlobManager();
  std::vector<std::string> dead;
  uint64_t bytes = 0;
  manager.getBlobMap(
      [&](const llvm::StringMap<DialectResourceBlobManager::BlobEntry> &map) {
        for (const auto &entry : map) {
          const AsmResourceBlob *blob = entry.getValue().getBlob();
          if (!blob || blob->getData().empty() || used.contains(entry.getKey()))
            continue;
          dead.push_back(entry.getKey().str());
          bytes += blob->getData().size();
        }
      });
  for (const std::string &key : dead)
    manager.update(key, AsmResourceBlob());
  return bytes;
}

} // namespace amk
