//===- PrintSummary.cpp - amk-print-summary -------------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"

#include "dialect/AMK/AMKDialect.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include <map>

#include <nlohmann/json.hpp>

namespace amk {
#define GEN_PASS_DEF_PRINTSUMMARY
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;

namespace {

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string humanBytes(uint64_t b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return llvm::formatv("{0:f1} {1}", v, units[u]).str();
}

struct Summary {
  nlohmann::ordered_json json;
  int64_t ops = 0, generic = 0, params = 0;
};

class PrintSummaryPass : public amk::impl::PrintSummaryBase<PrintSummaryPass> {
public:
  using PrintSummaryBase::PrintSummaryBase;

  void runOnOperation() override {
    Summary s = collect(getOperation());
    numOps = s.ops;
    numGenericOps = s.generic;
    numParameters = s.params;
    amk::PassCounters::add(this, "ops", s.ops, "ONNX ops in the module");
    amk::PassCounters::add(this, "generic-ops", s.generic,
                           "ops kept as onnx.Generic (no typed op)");
    amk::PassCounters::add(this, "parameters", s.params,
                           "elements in constant tensors");

    std::string error;
    auto out = openOutputFile(output, &error);
    if (!out) {
      getOperation().emitError() << "amk-print-summary: " << error;
      return signalPassFailure();
    }
    if (format == amk::SummaryFormat::JSON)
      out->os() << s.json.dump(2) << "\n";
    else
      printText(s.json, out->os());
    out->keep();
    markAllAnalysesPreserved();
  }

private:
  static Summary collect(ModuleOp module) {
    Summary s;
    auto &j = s.json;
    auto str = [&](llvm::StringRef attr) -> std::string {
      auto a = module->getAttrOfType<StringAttr>(attr);
      return a ? a.str() : "";
    };
    j["producer"] = str("onnx.producer_name");
    j["producer_version"] = str("onnx.producer_version");
    if (auto ir = module->getAttrOfType<IntegerAttr>("onnx.ir_version"))
      j["ir_version"] = ir.getInt();
    j["opsets"] = nlohmann::ordered_json::object();
    if (auto imports =
            module->getAttrOfType<DictionaryAttr>(amk::onnx::kOpsetImportAttr))
      for (NamedAttribute kv : imports)
        j["opsets"][kv.getName().str()] =
            cast<IntegerAttr>(kv.getValue()).getInt();

    j["inputs"] = nlohmann::ordered_json::array();
    j["outputs"] = nlohmann::ordered_json::array();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (BlockArgument arg : func.getArguments())
        j["inputs"].push_back({{"name", amk::onnx::getTensorName(arg).str()},
                               {"type", typeStr(arg.getType())}});
      for (auto [i, t] : llvm::enumerate(func.getResultTypes())) {
        auto n = func.getResultAttrOfType<StringAttr>(i, amk::onnx::kNameAttr);
        j["outputs"].push_back(
            {{"name", n ? n.str() : ""}, {"type", typeStr(t)}});
      }
    }

    std::map<std::string, int64_t> counts;
    int64_t constants = 0, bytes = 0, staticValues = 0, dynamicValues = 0,
            unknownValues = 0;
    module.walk([&](Operation *op) {
      // AMK's fused ops count under their full name ("amk.conv"); the ops
      // inside a fused elementwise group count with the group.
      bool fused = isa_and_nonnull<amk::fused::AMKDialect>(op->getDialect());
      if (fused && isa<amk::fused::YieldOp>(op))
        return;
      if (isa_and_nonnull<amk::fused::FusedElementwiseOp>(op->getParentOp()))
        return;
      if (!fused &&
          (!isa_and_nonnull<amk::onnx::ONNXDialect>(op->getDialect()) ||
           isa<amk::onnx::NoValueOp, amk::onnx::YieldOp>(op)))
        return;
      std::string key = fused ? op->getName().getStringRef().str()
                              : op->getName().stripDialect().str();
      if (auto g = dyn_cast<amk::onnx::GenericOp>(op)) {
        key = (g.getDomain().empty() ? "" : g.getDomain().str() + ".") +
              g.getOpType().str() + " (generic)";
        ++s.generic;
      }
      ++counts[key];
      ++s.ops;
      if (auto c = dyn_cast<amk::onnx::ConstantOp>(op))
        if (auto v = c.getValue()) {
          auto t = cast<ShapedType>(v->getType());
          ++constants;
          s.params += t.getNumElements();
          unsigned bits = t.getElementType().isIntOrFloat()
                              ? t.getElementType().getIntOrFloatBitWidth()
                              : 0;
          bytes += (t.getNumElements() * bits + 7) / 8;
        }
      for (Value r : op->getResults()) {
        if (isa<NoneType>(r.getType()))
          continue;
        auto t = dyn_cast<ShapedType>(r.getType());
        if (!t || !t.hasRank())
          ++unknownValues;
        else if (t.hasStaticShape())
          ++staticValues;
        else
          ++dynamicValues;
      }
    });
    std::vector<std::pair<std::string, int64_t>> sorted(counts.begin(),
                                                        counts.end());
    // Most frequent first, then by name.
    llvm::sort(sorted, [](const auto &a, const auto &b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    j["op_count"] = s.ops;
    j["op_types"] = nlohmann::ordered_json::object();
    for (auto &[k, v] : sorted)
      j["op_types"][k] = v;
    j["generic_ops"] = s.generic;
    j["constants"] = constants;
    j["parameters"] = s.params;
    j["parameter_bytes"] = bytes;
    j["values"] = {{"static_shape", staticValues},
                   {"dynamic_shape", dynamicValues},
                   {"unranked_or_unknown", unknownValues}};
    return s;
  }

  static void printText(const nlohmann::ordered_json &j,
                        llvm::raw_ostream &os) {
    os << "Model";
    if (!j["producer"].get<std::string>().empty())
      os << " from " << j["producer"].get<std::string>() << " "
         << j["producer_version"].get<std::string>();
    if (j.contains("ir_version"))
      os << " (IR version " << j["ir_version"].get<int64_t>() << ")";
    os << "\nOpsets:";
    for (auto &[k, v] : j["opsets"].items())
      os << " " << k << " " << v.get<int64_t>();
    os << "\nInputs:\n";
    for (auto &in : j["inputs"])
      os << "  " << in["name"].get<std::string>() << ": "
         << in["type"].get<std::string>() << "\n";
    os << "Outputs:\n";
    for (auto &out : j["outputs"])
      os << "  " << out["name"].get<std::string>() << ": "
         << out["type"].get<std::string>() << "\n";
    os << "Ops: " << j["op_count"].get<int64_t>() << " in "
       << j["op_types"].size() << " types\n";
    for (auto &[k, v] : j["op_types"].items())
      os << llvm::formatv("  {0,-28} {1,6}\n", k, v.get<int64_t>());
    os << "Parameters: " << j["parameters"].get<int64_t>() << " ("
       << humanBytes(j["parameter_bytes"].get<int64_t>()) << ") in "
       << j["constants"].get<int64_t>() << " constants\n";
    const auto &vals = j["values"];
    os << "Values: " << vals["static_shape"].get<int64_t>()
       << " with static shapes, " << vals["dynamic_shape"].get<int64_t>()
       << " with dynamic dimensions, "
       << vals["unranked_or_unknown"].get<int64_t>() << " unranked\n";
  }
};

} // namespace
