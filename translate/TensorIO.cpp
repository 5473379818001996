//===- TensorIO.cpp - Tensor files: ONNX TensorProto and NumPy .npy -------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "translate/TensorIO.h"
#include "translate/ONNXTensor.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <climits>

using namespace mlir;

namespace amk {
namespace {

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

constexpr llvm::StringLiteral kNpyMagic = "\x93NUMPY";

struct NpyType {
  const char *descr;
  onnx::DataType dt;
};
// Little-endian descriptors only; '|' marks byte-sized types.
const NpyType kNpyTypes[] = {
    {"<f4", onnx::DataType::FLOAT},     {"<f8", onnx::DataType::DOUBLE},
    {"<f2", onnx::DataType::FLOAT16},   {"|i1", onnx::DataType::INT8},
    {"<i2", onnx::DataType::INT16},     {"<i4", onnx::DataType::INT32},
    {"<i8", onnx::DataType::INT64},     {"|u1", onnx::DataType::UINT8},
    {"<u2", onnx::DataType::UINT16},    {"<u4", onnx::DataType::UINT32},
    {"<u8", onnx::DataType::UINT64},    {"|b1", onnx::DataType::BOOL},
    {"<c8", onnx::DataType::COMPLEX64}, {"<c16", onnx::DataType::COMPLEX128},
};

/// Extracts the value of `key` from a .npy header dict literal.
llvm::StringRef headerField(llvm::StringRef header, llvm::StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = header.drop_front(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return "";
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t end = rest.find(')');
    return end == llvm::StringRef::npos ? "" : rest.take_front(end + 1);
  }
  if (rest.starts_with("'")) {
    size_t end = rest.find('\'', 1);
    return end == llvm::StringRef::npos ? "" : rest.take_front(end + 1);
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

} // namespace

llvm::Expected<ElementsAttr> parseNpy(llvm::StringRef bytes, MLIRContext *ctx) {
  if (!bytes.starts_with(kNpyMagic) || bytes.size() < 10)
    return makeError("not a .npy file");
  uint8_t major = bytes[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen =
        static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return makeError("truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                   << (8 * i);
    offset = 12;
  } else {
    return makeError("unsupported .npy version " + llvm::Twine(major));
  }
  if (bytes.size() < offset + headerLen)
    return makeError("truncated .npy header");
  llvm::StringRef header = bytes.substr(offset, headerLen);
  llvm::StringRef descr = headerField(header, "descr").trim("'");
  llvm::StringRef fortran = headerField(header, "fortran_order");
  llvm::StringRef shapeStr = headerField(header, "shape");
  if (fortran != "False")
    return makeError(".npy arrays must be in C order (fortran_order False)");
  std::optional<onnx::DataType> dt;
  for (const NpyType &t : kNpyTypes)
    if (descr == t.descr ||
        (descr.size() == 3 && descr[0] == '=' &&
         descr.drop_front() == llvm::StringRef(t.descr).drop_front()))
      dt = t.dt;
  if (!dt)
    return makeError("unsupported .npy dtype '" + descr + "'");
  SmallVector<int64_t> shape;
  llvm::StringRef dims = shapeStr.trim("()");
  while (!dims.empty()) {
    auto [head, tail] = dims.split(',');
    head = head.trim();
    if (!head.empty()) {
      int64_t d;
      if (head.getAsInteger(10, d) || d < 0)
        return makeError("bad .npy shape '" + shapeStr + "'");
      shape.push_back(d);
    }
    dims = tail;
  }
  auto n = checkedNumElements(shape, int64_t(1) << 40);
  if (!n)
    return n.takeError();
  auto type = RankedTensorType::get(
      shape, onnx::getElementType(ctx, static_cast<int32_t>(*dt)));
  return elementsFromRaw(type, bytes.drop_front(offset + headerLen));
}

llvm::Expected<std::string> serializeNpy(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  auto dt = onnx::getDataType(type.getElementType());
  const char *descr = nullptr;
  for (const NpyType &t : kNpyTypes)
    if (dt && t.dt == *dt)
      descr = t.descr;
  if (!descr)
    return makeError("element type " +
                     llvm::Twine(dt ? static_cast<int>(*dt) : 0) +
                     " has no .npy dtype");
  auto raw = getRawBytes(value);
  if (!raw)
    return raw.takeError();
  // Python tuple syntax: (), (3,), (2, 3).
  std::string shape = "(";
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    shape += (i ? ", " : "") + std::to_string(d);
  shape += type.getRank() == 1 ? ",)" : ")";
  std::string header = llvm::formatv("{{'descr': '{0}', 'fortran_order': "
                                     "False, 'shape': {1}, }",
                                     descr, shape)
                           .str();
  // Pad so the data starts on a 64-byte boundary, ending with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kNpyMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>((header.size() >> 8) & 0xFF);
  out += header;
  out += *raw;
  return out;
}

llvm::Expected<ElementsAttr>
readTensorFile(llvm::StringRef path, MLIRContext *ctx, std::string *name) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError("cannot read '" + path + "': " + buf.getError().message());
  llvm::StringRef bytes = (*buf)->getBuffer();
  if (bytes.starts_with(kNpyMagic)) {
    auto attr = parseNpy(bytes, ctx);
    if (!attr)
      return makeError(path + ": " + llvm::toString(attr.takeError()));
    return attr;
  }
  ::onnx::TensorProto tensor;
  google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                             static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!tensor.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return makeError(path + ": not a .npy file or an ONNX TensorProto");
  if (name)
    *name = tensor.name();
  TensorImportOptions opts;
  opts.resourceThreshold = SIZE_MAX; // Inputs stay inline.
  auto attr = convertTensorProto(tensor, ctx, opts);
  if (!attr)
    return makeError(path + ": " + llvm::toString(attr.takeError()));
  return attr;
}

namespace {
llvm::Expected<ValueFile> convertTensorValue(::onnx::TensorProto &t,
                                             MLIRContext *ctx) {
  TensorImportOptions opts;
  opts.resourceThreshold = SIZE_MAX;
  auto attr = convertTensorProto(t, ctx, opts);
  if (!attr)
    return attr.takeError();
  ValueFile v;
  v.kind = ValueFile::Kind::Tensor;
  v.tensor = *attr;
  return v;
}

llvm::Expected<ValueFile> convertSequence(::onnx::SequenceProto &s,
                                          MLIRContext *ctx);

llvm::Expected<ValueFile> convertOptional(::onnx::OptionalProto &o,
                                          MLIRContext *ctx) {
  if (o.has_tensor_value())
    return convertTensorValue(*o.mutable_tensor_value(), ctx);
  if (o.has_sequence_value())
    return convertSequence(*o.mutable_sequence_value(), ctx);
  return ValueFile(); // An empty optional.
}

llvm::Expected<ValueFile> convertSequence(::onnx::SequenceProto &s,
                                          MLIRContext *ctx) {
  ValueFile v;
  v.kind = ValueFile::Kind::Sequence;
  for (auto &t : *s.mutable_tensor_values()) {
    auto item = convertTensorValue(t, ctx);
    if (!item)
      return item.takeError();
    v.items.push_back(std::move(*item));
  }
  for (auto &inner : *s.mutable_sequence_values()) {
    auto item = convertSequence(inner, ctx);
    if (!item)
      return item.takeError();
    v.items.push_back(std::move(*item));
  }
  for (auto &o : *s.mutable_optional_values()) {
    auto item = convertOptional(o, ctx);
    if (!item)
      return item.takeError();
    v.items.push_back(std::move(*item));
  }
  if (s.map_values_size())
    return makeError("sequences of maps are not supported");
  return v;
}

template <typename Proto>
llvm::Error parseProtoFile(llvm::StringRef path, Proto &proto) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError("cannot read '" + path + "': " +
                     buf.getError().message());
  llvm::StringRef bytes = (*buf)->getBuffer();
  google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                             static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!proto.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return makeError(path + ": not a valid " + proto.GetTypeName());
  return llvm::Error::success();
}
} // namespace

llvm::Expected<ValueFile> readValueFile(llvm::StringRef path, Type expected,
                                        MLIRContext *ctx) {
  auto wrap = [&](llvm::Expected<ValueFile> v) -> llvm::Expected<ValueFile> {
    if (!v)
      return makeError(path + ": " + llvm::toString(v.takeError()));
    return v;
  };
  if (isa_and_nonnull<onnx::SeqType>(expected)) {
    ::onnx::SequenceProto seq;
    if (auto err = parseProtoFile(path, seq))
      return std::move(err);
    return wrap(convertSequence(seq, ctx));
  }
  if (isa_and_nonnull<onnx::OptType>(expected)) {
    ::onnx::OptionalProto opt;
    if (auto err = parseProtoFile(path, opt))
      return std::move(err);
    return wrap(convertOptional(opt, ctx));
  }
  auto attr = readTensorFile(path, ctx);
  if (!attr)
    return attr.takeError();
  ValueFile v;
  v.kind = ValueFile::Kind::Tensor;
  v.tensor = *attr;
  return v;
}

llvm::Error writeTensorFile(llvm::StringRef path, ElementsAttr value,
                            llvm::StringRef name) {
  std::string bytes;
  if (path.ends_with(".npy")) {
    auto npy = serializeNpy(value);
    if (!npy)
      return npy.takeError();
    bytes = std::move(*npy);
  } else {
    ::onnx::TensorProto tensor;
    if (auto err = exportElementsAttr(value, tensor))
      return err;
    tensor.set_name(name.str());
    tensor.SerializeToString(&bytes);
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  os << bytes;
  return llvm::Error::success();
}

ElementsAttr makeRandomTensor(ShapedType type, uint64_t seed) {
  // SplitMix64: fully specified, so inputs match across machines and
  // standard libraries (std:: distributions are implementation-defined).
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  auto unit = [&] { return static_cast<double>(next() >> 11) * 0x1.0p-53; };
  int64_t n = type.getNumElements();
  Type elt = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(elt)) {
    SmallVector<APFloat> vals;
    vals.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(unit() * 2.0 - 1.0);
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(v);
    }
    return DenseElementsAttr::get(type, vals);
  }
  if (elt.isInteger(1)) {
    SmallVector<bool> vals;
    for (int64_t i = 0; i < n; ++i)
      vals.push_back(next() & 1);
    return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(vals));
  }
  if (auto it = dyn_cast<IntegerType>(elt)) {
    SmallVector<APInt> vals;
    for (int64_t i = 0; i < n; ++i)
      vals.push_back(APInt(it.getWidth(), next() % 10));
    return DenseElementsAttr::get(type, vals);
  }
  if (isa<onnx::StringType>(elt)) {
    SmallVector<std::string> strs;
    for (int64_t i = 0; i < n; ++i)
      strs.push_back("s" + std::to_string(next() % 100));
    SmallVector<StringRef> refs(strs.begin(), strs.end());
    return DenseStringElementsAttr::get(type, refs);
  }
  return nullptr;
}

} // namespace amk

std::string amk::findTensorFile(llvm::StringRef dir, llvm::StringRef name,
                                llvm::StringRef prefix, unsigned i) {
  auto exists = [&](const std::string &f) -> std::string {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, f);
    return llvm::sys::fs::exists(p) ? std::string(p) : "";
  };
  // A directory in the ONNX test-data layout (<prefix>_0.pb, ...) is read
  // by position; only otherwise by name. Mixing the two would read
  // "output_1.pb" (the second output) for an output named "output_1".
  bool positional = !exists((prefix + "_0.pb").str()).empty() ||
                    !exists((prefix + "_0.npy").str()).empty();
  std::vector<std::string> byPosition = {
      (prefix + "_" + llvm::Twine(i) + ".pb").str(),
      (prefix + "_" + llvm::Twine(i) + ".npy").str()};
  std::vector<std::string> byName = {name.str() + ".pb", name.str() + ".npy"};
  if (!positional)
    byPosition.insert(byPosition.begin(), byName.begin(), byName.end());
  for (const std::string &f : byPosition)
    if (std::string p = exists(f); !p.empty())
      return p;
  return "";
}
