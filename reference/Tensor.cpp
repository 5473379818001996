//===- Tensor.cpp - Values of the reference interpreter -------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/Tensor.h"

#include "translate/ONNXTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace amk::ref {

int64_t numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Shape stridesOf(llvm::ArrayRef<int64_t> shape) {
  Shape s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::string shapeToString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

size_t elementSize(DataType dt) {
  switch (dt) {
  case DataType::STRING:
  case DataType::UNDEFINED:
    return 0;
  case DataType::INT4:
  case DataType::UINT4:
  case DataType::BOOL:
    return 1;
  default:
    return onnx::getDataTypeBitWidth(dt) / 8;
  }
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // Subnormal: normalize.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | ((127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u) // Inf or NaN (keep NaN quiet).
    return sign | 0x7C00u | (absx > 0x7F800000u ? 0x200u : 0);
  if (absx >= 0x477FF000u) // Rounds to >= 65520: infinity.
    return sign | 0x7C00u;
  if (absx < 0x38800000u) { // Subnormal or zero in half.
    if (absx < 0x33000000u)
      return sign;
    // A half subnormal is m * 2^-24; with the float's 24-bit significand
    // and biased exponent e, m = significand * 2^(e - 126).
    uint32_t mant = (absx & 0x7FFFFF) | 0x800000;
    int shift = 126 - static_cast<int>(absx >> 23);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = ((absx >> 13) - ((127 - 15) << 10));
  uint32_t rem = absx & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half;
  return sign | half;
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

static const llvm::fltSemantics *float8Semantics(DataType dt) {
  switch (dt) {
  case DataType::FLOAT8E4M3FN:
    return &llvm::APFloat::Float8E4M3FN();
  case DataType::FLOAT8E4M3FNUZ:
    return &llvm::APFloat::Float8E4M3FNUZ();
  case DataType::FLOAT8E5M2:
    return &llvm::APFloat::Float8E5M2();
  case DataType::FLOAT8E5M2FNUZ:
    return &llvm::APFloat::Float8E5M2FNUZ();
  default:
    return nullptr;
  }
}

Tensor::Tensor(DataType dt, llvm::ArrayRef<int64_t> shape)
    : dt(dt), dims(shape.begin(), shape.end()), n(numElements(shape)) {
  if (dt == DataType::STRING) {
    strs = std::make_shared<std::vector<std::string>>(n);
    return;
  }
  size_t bytes = std::max<size_t>(1, n * elementSize(dt));
  buffer = std::shared_ptr<char[]>(new (std::align_val_t(64)) char[bytes](),
                                   [](char *p) {
                                     ::operator delete[](p,
                                                         std::align_val_t(64));
                                   });
}

Tensor Tensor::reshaped(llvm::ArrayRef<int64_t> newShape) const {
  Tensor t = *this;
  t.dims.assign(newShape.begin(), newShape.end());
  assert(numElements(newShape) == n && "reshape changes the element count");
  return t;
}

Tensor Tensor::bitcast(DataType to) const {
  assert(elementSize(to) == elementSize(dt) && "bitcast changes the size");
  Tensor t = *this;
  t.dt = to;
  return t;
}

double Tensor::getDouble(int64_t i) const {
  switch (dt) {
  case DataType::FLOAT:
    return data<float>()[i];
  case DataType::DOUBLE:
    return data<double>()[i];
  case DataType::FLOAT16:
    return halfToFloat(data<uint16_t>()[i]);
  case DataType::BFLOAT16:
    return bf16ToFloat(data<uint16_t>()[i]);
  case DataType::INT8:
  case DataType::INT4:
    return data<int8_t>()[i];
  case DataType::UINT8:
  case DataType::UINT4:
  case DataType::BOOL:
    return data<uint8_t>()[i];
  case DataType::INT16:
    return data<int16_t>()[i];
  case DataType::UINT16:
    return data<uint16_t>()[i];
  case DataType::INT32:
    return data<int32_t>()[i];
  case DataType::UINT32:
    return data<uint32_t>()[i];
  case DataType::INT64:
    return static_cast<double>(data<int64_t>()[i]);
  case DataType::UINT64:
    return static_cast<double>(data<uint64_t>()[i]);
  case DataType::FLOAT8E4M3FN:
  case DataType::FLOAT8E4M3FNUZ:
  case DataType::FLOAT8E5M2:
  case DataType::FLOAT8E5M2FNUZ: {
    llvm::APFloat f(*float8Semantics(dt),
                    llvm::APInt(8, data<uint8_t>()[i]));
    return f.convertToDouble();
  }
  default:
    return 0;
  }
}

int64_t Tensor::getInt(int64_t i) const {
  switch (dt) {
  case DataType::INT64:
    return data<int64_t>()[i];
  case DataType::UINT64:
    return static_cast<int64_t>(data<uint64_t>()[i]);
  case DataType::INT32:
    return data<int32_t>()[i];
  case DataType::UINT32:
    return data<uint32_t>()[i];
  case DataType::INT16:
    return data<int16_t>()[i];
  case DataType::UINT16:
    return data<uint16_t>()[i];
  case DataType::INT8:
  case DataType::INT4:
    return data<int8_t>()[i];
  case DataType::UINT8:
  case DataType::UINT4:
  case DataType::BOOL:
    return data<uint8_t>()[i];
  default:
    return static_cast<int64_t>(getDouble(i));
  }
}

void Tensor::setDouble(int64_t i, double v) {
  switch (dt) {
  case DataType::FLOAT:
    data<float>()[i] = static_cast<float>(v);
    return;
  case DataType::DOUBLE:
    data<double>()[i] = v;
    return;
  case DataType::FLOAT16:
    data<uint16_t>()[i] = floatToHalf(static_cast<float>(v));
    return;
  case DataType::BFLOAT16:
    data<uint16_t>()[i] = floatToBf16(static_cast<float>(v));
    return;
  case DataType::BOOL:
    data<uint8_t>()[i] = v != 0;
    return;
  case DataType::FLOAT8E4M3FN:
  case DataType::FLOAT8E4M3FNUZ:
  case DataType::FLOAT8E5M2:
  case DataType::FLOAT8E5M2FNUZ: {
    llvm::APFloat f(v);
    bool lost;
    f.convert(*float8Semantics(dt), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    data<uint8_t>()[i] =
        static_cast<uint8_t>(f.bitcastToAPInt().getZExtValue());
    return;
  }
  default:
    setInt(i, static_cast<int64_t>(v));
  }
}

void Tensor::setInt(int64_t i, int64_t v) {
  switch (dt) {
  case DataType::INT64:
    data<int64_t>()[i] = v;
    return;
  case DataType::UINT64:
    data<uint64_t>()[i] = static_cast<uint64_t>(v);
    return;
  case DataType::INT32:
    data<int32_t>()[i] = static_cast<int32_t>(v);
    return;
  case DataType::UINT32:
    data<uint32_t>()[i] = static_cast<uint32_t>(v);
    return;
  case DataType::INT16:
    data<int16_t>()[i] = static_cast<int16_t>(v);
    return;
  case DataType::UINT16:
    data<uint16_t>()[i] = static_cast<uint16_t>(v);
    return;
  case DataType::INT8:
  case DataType::INT4:
    data<int8_t>()[i] = static_cast<int8_t>(v);
    return;
  case DataType::UINT8:
  case DataType::UINT4:
    data<uint8_t>()[i] = static_cast<uint8_t>(v);
    return;
  case DataType::BOOL:
    data<uint8_t>()[i] = v != 0;
    return;
  default:
    setDouble(i, static_cast<double>(v));
  }
}

std::vector<int64_t> Tensor::toInt64Vector() const {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = getInt(i);
  return v;
}

Tensor Tensor::scalar(DataType dt, double v) {
  Tensor t(dt, {});
  t.setDouble(0, v);
  return t;
}

Tensor Tensor::fromInt64(llvm::ArrayRef<int64_t> values,
                         llvm::ArrayRef<int64_t> shape) {
  Tensor t(DataType::INT64, shape);
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

llvm::Expected<Tensor> Tensor::fromAttr(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  auto dt = onnx::getDataType(type.getElementType());
  if (!dt)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "element type has no ONNX data type");
  Tensor t(*dt, type.getShape());
  if (*dt == DataType::STRING) {
    auto strs = cast<DenseStringElementsAttr>(attr);
    auto raw = strs.getRawStringData();
    for (int64_t i = 0; i < t.n; ++i)
      t.strings()[i] = raw[strs.isSplat() ? 0 : i].str();
    return t;
  }
  if (auto sparse = dyn_cast<SparseElementsAttr>(attr)) {
    auto values = Tensor::fromAttr(sparse.getValues());
    if (!values)
      return values.takeError();
    auto strides = stridesOf(t.dims);
    auto idx = llvm::to_vector(sparse.getIndices().getValues<int64_t>());
    size_t rank = t.dims.size();
    for (int64_t k = 0; k < values->numel(); ++k) {
      int64_t flat = 0;
      for (size_t d = 0; d < rank; ++d)
        flat += idx[k * rank + d] * strides[d];
      t.setDouble(flat, values->getDouble(k));
    }
    return t;
  }
  auto bytes = getRawBytes(attr);
  if (!bytes)
    return bytes.takeError();
  if (*dt == DataType::INT4 || *dt == DataType::UINT4) {
    for (int64_t i = 0; i < t.n; ++i) {
      uint8_t byte = static_cast<uint8_t>((*bytes)[i / 2]);
      uint8_t nib = (i % 2) ? (byte >> 4) : (byte & 0xF);
      t.data<uint8_t>()[i] =
          (*dt == DataType::INT4 && (nib & 8)) ? (nib | 0xF0) : nib;
    }
    return t;
  }
  std::memcpy(t.raw(), bytes->data(), bytes->size());
  return t;
}

ElementsAttr Tensor::toAttr(MLIRContext *ctx) const {
  auto type = RankedTensorType::get(dims, onnx::getElementType(
                                              ctx, static_cast<int32_t>(dt)));
  if (dt == DataType::STRING) {
    SmallVector<StringRef> refs(strs->begin(), strs->end());
    return DenseStringElementsAttr::get(type, refs);
  }
  // Only int4 needs its own bytes (packed two per byte); other data is
  // read in place: a packed weight of the scheduler's is not copied twice.
  bool nibbles = dt == DataType::INT4 || dt == DataType::UINT4;
  std::string packed;
  if (nibbles) {
    packed.assign((n + 1) / 2, 0);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t nib = data<uint8_t>()[i] & 0xF;
      packed[i / 2] |= static_cast<char>((i % 2) ? (nib << 4) : nib);
    }
  }
  auto attr =
      elementsFromRaw(type, nibbles ? llvm::StringRef(packed)
                                    : llvm::StringRef(raw(), byteSize()));
  if (!attr) {
    llvm::consumeError(attr.takeError());
    return nullptr;
  }
  return *attr;
}

bool Tensor::identical(const Tensor &other) const {
  if (dt != other.dt || dims != other.dims)
    return false;
  if (dt == DataType::STRING)
    return *strs == *other.strs;
  return std::memcmp(raw(), other.raw(), byteSize()) == 0;
}

std::string RValue::describe() const {
  switch (kind) {
  case Kind::None:
    return "none";
  case Kind::Sequence:
    return "sequence of " + std::to_string(seq->size());
  case Kind::Tensor:
    return (onnx::getDataTypeName(tensor.dtype()) +
            shapeToString(tensor.shape()))
        .str();
  }
  return "";
}

} // namespace amk::ref
