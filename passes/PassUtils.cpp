//===- PassUtils.cpp - Helpers shared by AMK passes -----------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "passes/PassUtils.h"

#include "translate/ONNXTensor.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <mutex>

using namespace mlir;

namespace amk {

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
  for (auto nv : block->getOps<onnx::NoValueOp>())
    return nv.getResult();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(block);
  return onnx::NoValueOp::create(b, loc, b.getNoneType()).getResult();
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

} // namespace amk
