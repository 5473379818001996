//===- ONNXText.cpp - Printer for the ONNX text syntax --------------------===//
//
// Part of AMK. libonnx 1.12 parses the ONNX text syntax, but its printer
// drops node domains and attribute types, so what it prints does not parse
// back to the same model. This printer writes what the 1.12 parser reads:
// domain-qualified op types, typed attribute values, empty names for
// omitted inputs, initializers, and nested graphs. The syntax has no node
// names and no value_info, so those are not printed.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXText.h"

#include "dialect/ONNX/ONNXTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>

#include <onnx/onnx_pb.h>

#include <cstring>

namespace amk {
namespace {

class TextPrinter {
public:
  explicit TextPrinter(llvm::raw_ostream &os) : os(os) {}

  void printModel(const ::onnx::ModelProto &model) {
    os << "<\n  ir_version: " << model.ir_version() << ",\n  opset_import: [";
    for (auto [i, imp] : llvm::enumerate(model.opset_import()))
      os << (i ? ", " : "") << quoted(imp.domain()) << " : " << imp.version();
    os << "]";
    if (!model.producer_name().empty())
      os << ",\n  producer_name: " << quoted(model.producer_name());
    if (!model.producer_version().empty())
      os << ",\n  producer_version: " << quoted(model.producer_version());
    os << "\n>\n";
    printGraph(model.graph(), 0);
    os << "\n";
  }

private:
  /// The 1.12 parser reads a string literal verbatim up to the next
  /// quote: no escapes, so a quote inside cannot be written at all.
  std::string quoted(const std::string &s) {
    if (s.find('"') != std::string::npos && unprintable.empty())
      unprintable = s;
    return "\"" + s + "\"";
  }

public:
  /// A string the syntax cannot represent, if one was met.
  std::string unprintable;

private:

  void indent(unsigned n) { os.indent(2 * n); }

  static std::string elemName(int32_t dt) {
    return onnx::getDataTypeName(static_cast<onnx::DataType>(dt)).str();
  }

  void printType(const ::onnx::TypeProto &t) {
    if (t.has_sequence_type()) {
      os << "seq(";
      printType(t.sequence_type().elem_type());
      os << ")";
      return;
    }
    if (t.has_optional_type()) {
      os << "optional(";
      printType(t.optional_type().elem_type());
      os << ")";
      return;
    }
    // In the 1.12 syntax `float` is a scalar and `float[]` has no shape.
    const auto &tt = t.tensor_type();
    os << elemName(tt.elem_type());
    if (!tt.has_shape()) {
      os << "[]";
      return;
    }
    if (tt.shape().dim_size() == 0)
      return;
    os << "[";
    for (auto [i, d] : llvm::enumerate(tt.shape().dim())) {
      os << (i ? "," : "");
      if (d.has_dim_value())
        os << d.dim_value();
      else if (!d.dim_param().empty())
        os << d.dim_param();
      else
        os << "?";
    }
    os << "]";
  }

  void printValueInfos(
      const google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> &vis) {
    os << "(";
    for (auto [i, vi] : llvm::enumerate(vis)) {
      os << (i ? ", " : "");
      printType(vi.type());
      os << " " << vi.name();
    }
    os << ")";
  }

  /// Nine significant digits read back to the same float.
  static std::string formatFloat(double v) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.9g", static_cast<float>(v));
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    return s;
  }

  /// Tensor literal: `float[2] {1.0, 2.0}`, or with a name for an
  /// initializer: `float[2] w = {1.0, 2.0}`.
  void printTensor(const ::onnx::TensorProto &t, llvm::StringRef name = "") {
    os << elemName(t.data_type()) << "[";
    for (auto [i, d] : llvm::enumerate(t.dims()))
      os << (i ? "," : "") << d;
    os << "] ";
    if (!name.empty())
      os << name << " = ";
    os << "{";
    int64_t n = 1;
    for (int64_t d : t.dims())
      n *= d;
    auto dt = static_cast<onnx::DataType>(t.data_type());
    const std::string &raw = t.raw_data();
    unsigned bits = onnx::getDataTypeBitWidth(dt);
    if (dt != onnx::DataType::STRING &&
        raw.size() * 8 < static_cast<uint64_t>(n) * bits)
      n = 0; // Data not held inline (exporter always writes raw_data).
    for (int64_t i = 0; i < n; ++i) {
      os << (i ? ", " : "");
      auto at = [&](size_t bytes) {
        uint64_t v = 0;
        std::memcpy(&v, raw.data() + i * bytes, bytes);
        return v;
      };
      switch (dt) {
      case onnx::DataType::FLOAT: {
        float f;
        uint32_t bits = static_cast<uint32_t>(at(4));
        std::memcpy(&f, &bits, 4);
        os << formatFloat(f);
        break;
      }
      case onnx::DataType::DOUBLE: {
        double d;
        uint64_t bits = at(8);
        std::memcpy(&d, &bits, 8);
        os << llvm::formatv("{0:e16}", d);
        break;
      }
      case onnx::DataType::INT8:
        os << static_cast<int>(static_cast<int8_t>(at(1)));
        break;
      case onnx::DataType::INT16:
        os << static_cast<int16_t>(at(2));
        break;
      case onnx::DataType::INT32:
        os << static_cast<int32_t>(at(4));
        break;
      case onnx::DataType::INT64:
        os << static_cast<int64_t>(at(8));
        break;
      case onnx::DataType::UINT8:
      case onnx::DataType::BOOL:
        os << at(1);
        break;
      case onnx::DataType::UINT16:
        os << at(2);
        break;
      case onnx::DataType::UINT32:
        os << at(4);
        break;
      case onnx::DataType::UINT64:
        os << at(8);
        break;
      case onnx::DataType::STRING:
        os << quoted(t.string_data(i));
        break;
      default:
        // float16, bfloat16, float8, int4: the 1.12 parser reads these as
        // integers of their bit patterns.
        os << at(std::max(1u, onnx::getDataTypeBitWidth(dt) / 8));
        break;
      }
    }
    os << "}";
  }

  void printAttr(const ::onnx::AttributeProto &a, unsigned depth) {
    using P = ::onnx::AttributeProto;
    os << a.name();
    switch (a.type()) {
    case P::INT:
      os << ": int = " << a.i();
      break;
    case P::FLOAT:
      os << ": float = " << formatFloat(a.f());
      break;
    case P::STRING:
      os << ": string = " << quoted(a.s());
      break;
    case P::INTS:
      os << ": ints = [";
      for (auto [i, v] : llvm::enumerate(a.ints()))
        os << (i ? ", " : "") << v;
      os << "]";
      break;
    case P::FLOATS:
      os << ": floats = [";
      for (auto [i, v] : llvm::enumerate(a.floats()))
        os << (i ? ", " : "") << formatFloat(v);
      os << "]";
      break;
    case P::STRINGS:
      os << ": strings = [";
      for (auto [i, v] : llvm::enumerate(a.strings()))
        os << (i ? ", " : "") << quoted(v);
      os << "]";
      break;
    case P::TENSOR:
      os << " = ";
      printTensor(a.t());
      break;
    case P::GRAPH:
      os << " = ";
      printGraph(a.g(), depth + 1);
      break;
    default:
      os << " = <unprintable attribute of type " << static_cast<int>(a.type())
         << ">";
    }
  }

  void printGraph(const ::onnx::GraphProto &g, unsigned depth) {
    os << (g.name().empty() ? "graph" : g.name()) << " ";
    printValueInfos(g.input());
    os << " => ";
    printValueInfos(g.output());
    if (g.initializer_size()) {
      os << "\n";
      indent(depth + 1);
      os << "<";
      for (auto [i, t] : llvm::enumerate(g.initializer())) {
        os << (i ? ",\n" : "");
        if (i)
          indent(depth + 2);
        printTensor(t, t.name());
      }
      os << ">";
    }
    os << "\n";
    indent(depth);
    os << "{\n";
    for (const auto &n : g.node()) {
      indent(depth + 1);
      for (auto [i, o] : llvm::enumerate(n.output()))
        os << (i ? ", " : "") << o;
      os << " = ";
      if (!n.domain().empty())
        os << n.domain() << ".";
      os << n.op_type();
      if (n.attribute_size()) {
        os << " <";
        for (auto [i, a] : llvm::enumerate(n.attribute())) {
          os << (i ? ", " : "");
          printAttr(a, depth + 1);
        }
        os << ">";
      }
      os << " (";
      for (auto [i, in] : llvm::enumerate(n.input()))
        os << (i ? ", " : "") << in;
      os << ")\n";
    }
    indent(depth);
    os << "}";
  }

  llvm::raw_ostream &os;
};

} // namespace

llvm::Error printONNXText(const ::onnx::ModelProto &model,
                          llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream ss(text);
  TextPrinter printer(ss);
  printer.printModel(model);
  if (!printer.unprintable.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the string \"" + printer.unprintable +
            "\" contains a double quote, which the ONNX text syntax read by "
            "libonnx 1.12 cannot represent; export a binary model instead");
  os << text;
  return llvm::Error::success();
}

} // namespace amk
