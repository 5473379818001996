//===- ONNXTensor.cpp - TensorProto <-> MLIR elements attributes ----------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "translate/ONNXTensor.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXTypes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <limits>

using namespace mlir;

namespace amk {
namespace {

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string shapeString(llvm::ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Bytes of `n` elements of `dt` in ONNX's raw layout.
uint64_t rawSize(onnx::DataType dt, int64_t n) {
  unsigned bits = onnx::getDataTypeBitWidth(dt);
  return (static_cast<uint64_t>(n) * bits + 7) / 8;
}

/// Resolves an external-data location inside `baseDir`, refusing absolute
/// paths, escapes through `..` or symlinks, and anything but regular files.
llvm::Expected<std::string> resolveExternal(llvm::StringRef baseDir,
                                            llvm::StringRef location) {
  if (baseDir.empty())
    return makeError("external data is not allowed here (no model directory)");
  if (location.empty())
    return makeError("external data has an empty location");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows))
    return makeError("external data location '" + location +
                     "' is an absolute path; only paths relative to the "
                     "model's directory are allowed");
  for (auto it = llvm::sys::path::begin(location),
            end = llvm::sys::path::end(location);
       it != end; ++it)
    if (*it == "..")
      return makeError("external data location '" + location +
                       "' escapes the model's directory through '..'");
  llvm::SmallString<256> joined(baseDir);
  llvm::sys::path::append(joined, location);
  llvm::SmallString<256> real, realBase;
  if (llvm::sys::fs::real_path(joined, real))
    return makeError("external data file '" + joined + "' does not exist");
  if (llvm::sys::fs::real_path(baseDir, realBase))
    return makeError("model directory '" + baseDir + "' does not exist");
  llvm::StringRef r = real, b = realBase;
  if (!r.starts_with(b) || (r.size() > b.size() && r[b.size()] != '/'))
    return makeError("external data location '" + location +
                     "' resolves outside the model's directory (to '" + real +
                     "')");
  if (!llvm::sys::fs::is_regular_file(real))
    return makeError("external data location '" + location +
                     "' is not a regular file");
  return std::string(real);
}

/// Loads the external bytes of `tensor`; the buffer is kept alive by the
/// returned MemoryBuffer.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
loadExternal(const ::onnx::TensorProto &tensor, llvm::StringRef baseDir,
             uint64_t expected) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto &kv : tensor.external_data()) {
    auto parse = [&](const std::string &v) -> llvm::Expected<uint64_t> {
      uint64_t x;
      if (llvm::StringRef(v).getAsInteger(10, x))
        return makeError("external data " + kv.key() + " '" + v +
                         "' is not a non-negative integer");
      return x;
    };
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset") {
      auto x = parse(kv.value());
      if (!x)
        return x.takeError();
      offset = *x;
    } else if (kv.key() == "length") {
      auto x = parse(kv.value());
      if (!x)
        return x.takeError();
      length = *x;
    }
  }
  auto path = resolveExternal(baseDir, location);
  if (!path)
    return path.takeError();
  if (length && *length != expected)
    return makeError(llvm::formatv(
        "external data length {0} does not match the {1} bytes the tensor's "
        "type and shape need",
        *length, expected));
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(*path, fileSize))
    return makeError("cannot stat external data file '" + *path + "'");
  if (offset > fileSize || expected > fileSize - offset)
    return makeError(llvm::formatv(
        "external data file '{0}' has {1} bytes; the tensor needs {2} bytes "
        "at offset {3}",
        location, fileSize, expected, offset));
  auto buf = llvm::MemoryBuffer::getFileSlice(*path, expected, offset,
                                              /*IsVolatile=*/false);
  if (!buf)
    return makeError("cannot read external data file '" + *path +
                     "': " + buf.getError().message());
  return std::move(*buf);
}

/// Copies the typed repeated field of `tensor` into little-endian bytes in
/// ONNX raw layout.
llvm::Expected<std::string> typedFieldBytes(const ::onnx::TensorProto &t,
                                            onnx::DataType dt, int64_t n) {
  using DT = onnx::DataType;
  std::string out;
  auto need = [&](int64_t have, int64_t want,
                  llvm::StringRef field) -> llvm::Error {
    if (have != want)
      return makeError(llvm::formatv("{0} has {1} values; the tensor's shape "
                                     "needs {2}",
                                     field, have, want));
    return llvm::Error::success();
  };
  auto append = [&](const void *p, size_t bytes) {
    out.append(static_cast<const char *>(p), bytes);
  };
  switch (dt) {
  case DT::FLOAT:
  case DT::COMPLEX64: {
    int64_t want = dt == DT::FLOAT ? n : 2 * n;
    if (auto e = need(t.float_data_size(), want, "float_data"))
      return std::move(e);
    append(t.float_data().data(), want * sizeof(float));
    return out;
  }
  case DT::DOUBLE:
  case DT::COMPLEX128: {
    int64_t want = dt == DT::DOUBLE ? n : 2 * n;
    if (auto e = need(t.double_data_size(), want, "double_data"))
      return std::move(e);
    append(t.double_data().data(), want * sizeof(double));
    return out;
  }
  case DT::INT64:
    if (auto e = need(t.int64_data_size(), n, "int64_data"))
      return std::move(e);
    append(t.int64_data().data(), n * sizeof(int64_t));
    return out;
  case DT::UINT32:
  case DT::UINT64: {
    if (auto e = need(t.uint64_data_size(), n, "uint64_data"))
      return std::move(e);
    for (uint64_t v : t.uint64_data()) {
      if (dt == DT::UINT32) {
        uint32_t x = static_cast<uint32_t>(v);
        append(&x, 4);
      } else {
        append(&v, 8);
      }
    }
    return out;
  }
  case DT::INT32:
  case DT::INT16:
  case DT::INT8:
  case DT::UINT16:
  case DT::UINT8:
  case DT::BOOL:
  case DT::FLOAT16:
  case DT::BFLOAT16:
  case DT::FLOAT8E4M3FN:
  case DT::FLOAT8E4M3FNUZ:
  case DT::FLOAT8E5M2:
  case DT::FLOAT8E5M2FNUZ: {
    if (auto e = need(t.int32_data_size(), n, "int32_data"))
      return std::move(e);
    unsigned bytes = onnx::getDataTypeBitWidth(dt) / 8;
    for (int32_t v : t.int32_data())
      append(&v, bytes); // Little endian: the low bytes come first.
    return out;
  }
  case DT::INT4:
  case DT::UINT4: {
    int64_t want = (n + 1) / 2;
    if (auto e = need(t.int32_data_size(), want, "int32_data"))
      return std::move(e);
    for (int32_t v : t.int32_data()) {
      char c = static_cast<char>(v);
      append(&c, 1);
    }
    return out;
  }
  case DT::STRING:
  case DT::UNDEFINED:
    break;
  }
  return makeError("unsupported data type");
}

/// Builds an inline DenseElementsAttr from raw ONNX bytes.
ElementsAttr denseFromRaw(RankedTensorType type, onnx::DataType dt,
                          llvm::StringRef raw) {
  using DT = onnx::DataType;
  int64_t n = type.getNumElements();
  if (dt == DT::BOOL) {
    SmallVector<bool> vals(n);
    for (int64_t i = 0; i < n; ++i)
      vals[i] = raw[i] != 0;
    return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(vals));
  }
  if (dt == DT::INT4 || dt == DT::UINT4) {
    SmallVector<APInt> vals;
    vals.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t byte = static_cast<uint8_t>(raw[i / 2]);
      uint8_t nib = (i % 2) ? (byte >> 4) : (byte & 0xF);
      vals.push_back(APInt(4, nib));
    }
    return DenseElementsAttr::get(type, vals);
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(raw.data(), raw.size()));
}

/// Whether `dt` may live in a dense_resource blob (byte-addressable
/// numeric types; bool and int4 stay inline).
bool isBlobType(onnx::DataType dt) {
  using DT = onnx::DataType;
  return dt != DT::BOOL && dt != DT::INT4 && dt != DT::UINT4 &&
         dt != DT::STRING && dt != DT::UNDEFINED;
}

} // namespace

llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> dims,
                                           int64_t maxElements) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return makeError("dimension " + std::to_string(d) + " in shape " +
                       shapeString(dims) + " is negative");
    if (d != 0 && n > maxElements / d)
      return makeError("shape " + shapeString(dims) + " has more than " +
                       std::to_string(maxElements) +
                       " elements (limit --onnx-max-elements)");
    n *= d;
  }
  return n;
}

llvm::Expected<ElementsAttr>
convertTensorProto(::onnx::TensorProto &tensor, MLIRContext *ctx,
                   const TensorImportOptions &options) {
  using DT = onnx::DataType;
  int32_t rawType = tensor.data_type();
  Type elt = onnx::getElementType(ctx, rawType);
  if (!elt)
    return makeError("unsupported or undefined data_type " +
                     std::to_string(rawType));
  auto dt = static_cast<DT>(rawType);
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  auto n = checkedNumElements(dims, options.maxElements);
  if (!n)
    return n.takeError();
  auto type = RankedTensorType::get(dims, elt);

  if (dt == DT::STRING) {
    if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL)
      return makeError("string tensors cannot use external data");
    if (tensor.string_data_size() != *n)
      return makeError(llvm::formatv("string_data has {0} values; the shape "
                                     "{1} needs {2}",
                                     tensor.string_data_size(),
                                     shapeString(dims), *n));
    SmallVector<StringRef> vals(tensor.string_data().begin(),
                                tensor.string_data().end());
    return ElementsAttr(DenseStringElementsAttr::get(type, vals));
  }

  uint64_t expected = rawSize(dt, *n);
  bool asBlob = isBlobType(dt) && expected > options.resourceThreshold;
  size_t align = std::max<size_t>(1, onnx::getDataTypeBitWidth(dt) / 8);
  if (dt == DT::COMPLEX64)
    align = 4;
  if (dt == DT::COMPLEX128)
    align = 8;

  // External data: map the slice and, for a blob, keep the mapping alive.
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL) {
    auto buf = loadExternal(tensor, options.baseDir, expected);
    if (!buf)
      return buf.takeError();
    llvm::StringRef bytes = (*buf)->getBuffer();
    if (!asBlob)
      return denseFromRaw(type, dt, bytes);
    if (reinterpret_cast<uintptr_t>(bytes.data()) % align != 0)
      return ElementsAttr(DenseResourceElementsAttr::get(
          type, options.blobName,
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              llvm::ArrayRef<char>(bytes.data(), bytes.size()), align,
              /*dataIsMutable=*/false)));
    std::shared_ptr<llvm::MemoryBuffer> keep(std::move(*buf));
    AsmResourceBlob blob(
        llvm::ArrayRef<char>(bytes.data(), bytes.size()), align,
        [keep](void *, size_t, size_t) mutable { keep.reset(); },
        /*dataIsMutable=*/false);
    return ElementsAttr(DenseResourceElementsAttr::get(type, options.blobName,
                                                       std::move(blob)));
  }

  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != expected)
      return makeError(llvm::formatv(
          "raw_data has {0} bytes; {1} tensor of shape {2} needs {3}",
          tensor.raw_data().size(), onnx::getDataTypeName(dt),
          shapeString(dims), expected));
    if (!asBlob)
      return denseFromRaw(type, dt, tensor.raw_data());
    // Take the string out of the proto: the blob owns it from now on.
    std::string *owned = tensor.release_raw_data();
    if (reinterpret_cast<uintptr_t>(owned->data()) % align != 0) {
      auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
          llvm::ArrayRef<char>(owned->data(), owned->size()), align, false);
      delete owned;
      return ElementsAttr(DenseResourceElementsAttr::get(type, options.blobName,
                                                         std::move(blob)));
    }
    AsmResourceBlob blob(
        llvm::ArrayRef<char>(owned->data(), owned->size()), align,
        [owned](void *, size_t, size_t) { delete owned; },
        /*dataIsMutable=*/false);
    return ElementsAttr(DenseResourceElementsAttr::get(type, options.blobName,
                                                       std::move(blob)));
  }

  auto bytes = typedFieldBytes(tensor, dt, *n);
  if (!bytes)
    return bytes.takeError();
  if (!asBlob)
    return denseFromRaw(type, dt, *bytes);
  return ElementsAttr(DenseResourceElementsAttr::get(
      type, options.blobName,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(
          llvm::ArrayRef<char>(bytes->data(), bytes->size()), align, false)));
}

llvm::Expected<ElementsAttr> elementsFromRaw(RankedTensorType type,
                                             llvm::StringRef raw) {
  auto dt = onnx::getDataType(type.getElementType());
  if (!dt || *dt == onnx::DataType::STRING)
    return makeError("not a numeric element type");
  uint64_t expected = rawSize(*dt, type.getNumElements());
  if (raw.size() != expected)
    return makeError(llvm::formatv("{0} bytes of data for a tensor that needs "
                                   "{1}",
                                   raw.size(), expected));
  return denseFromRaw(type, *dt, raw);
}

llvm::Expected<std::string> getRawBytes(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  auto dt = onnx::getDataType(type.getElementType());
  if (!dt || *dt == onnx::DataType::STRING)
    return makeError("not a numeric tensor");
  int64_t n = type.getNumElements();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return makeError("resource '" + res.getRawHandle().getKey() +
                       "' has no data (was it elided when printing?)");
    llvm::ArrayRef<char> data = blob->getData();
    if (data.size() != rawSize(*dt, n))
      return makeError(llvm::formatv("resource '{0}' has {1} bytes; the "
                                     "type needs {2}",
                                     res.getRawHandle().getKey(), data.size(),
                                     rawSize(*dt, n)));
    return std::string(data.data(), data.size());
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return makeError("unsupported elements attribute kind");
  std::string out;
  if (*dt == onnx::DataType::BOOL) {
    out.reserve(n);
    for (bool b : dense.getValues<bool>())
      out.push_back(b ? 1 : 0);
    return out;
  }
  if (*dt == onnx::DataType::INT4 || *dt == onnx::DataType::UINT4) {
    out.assign((n + 1) / 2, 0);
    int64_t i = 0;
    for (APInt v : dense.getValues<APInt>()) {
      uint8_t nib = static_cast<uint8_t>(v.getZExtValue() & 0xF);
      out[i / 2] |= static_cast<char>((i % 2) ? (nib << 4) : nib);
      ++i;
    }
    return out;
  }
  llvm::ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    out.reserve(raw.size() * n);
    for (int64_t i = 0; i < n; ++i)
      out.append(raw.data(), raw.size());
    return out;
  }
  return std::string(raw.data(), raw.size());
}

llvm::Error exportElementsAttr(ElementsAttr attr, ::onnx::TensorProto &t) {
  auto type = cast<ShapedType>(attr.getType());
  if (!type.hasStaticShape())
    return makeError("tensor value has a non-static shape");
  auto dt = onnx::getDataType(type.getElementType());
  if (!dt)
    return makeError("element type has no ONNX data type");
  t.set_data_type(static_cast<int32_t>(*dt));
  t.clear_dims();
  for (int64_t d : type.getShape())
    t.add_dims(d);
  if (*dt == onnx::DataType::STRING) {
    auto strs = dyn_cast<DenseStringElementsAttr>(attr);
    if (!strs)
      return makeError("string tensor is not a dense string attribute");
    int64_t n = type.getNumElements();
    auto vals = strs.getRawStringData();
    for (int64_t i = 0; i < n; ++i)
      t.add_string_data(vals[strs.isSplat() ? 0 : i].str());
    return llvm::Error::success();
  }
  auto bytes = getRawBytes(attr);
  if (!bytes)
    return bytes.takeError();
  t.set_raw_data(std::move(*bytes));
  return llvm::Error::success();
}

} // namespace amk
