//===- ConvPool.cpp - Convolution and pooling -----------------------------===//
//
// Part of AMK. N-dimensional Conv and ConvTranspose (groups, dilations,
// strides, explicit and automatic padding) and the pooling ops. float32
// convolutions use im2col and the blocked GEMM; other types a direct loop
// accumulating in double.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

/// Geometry of a sliding-window op over the spatial dimensions.
struct Window {
  Shape in, kernel, stride, dilation, padBegin, padEnd, out;
  int64_t spatial() const { return in.size(); }
  int64_t inSize() const { return numElements(in); }
  int64_t outSize() const { return numElements(out); }
  int64_t kernelSize() const { return numElements(kernel); }
};

/// Fills padding and output sizes from the attributes, following the ONNX
/// rules for auto_pad and ceil_mode.
LogicalResult makeWindow(KernelContext &ctx, llvm::ArrayRef<int64_t> inShape,
                         llvm::ArrayRef<int64_t> kernel, bool ceilMode,
                         Window &w) {
  int64_t n = inShape.size();
  w.in.assign(inShape.begin(), inShape.end());
  w.kernel.assign(kernel.begin(), kernel.end());
  auto vec = [&](llvm::StringRef name, int64_t size, int64_t dflt) {
    auto v = ctx.getInts(name);
    return v ? Shape(v->begin(), v->end()) : Shape(size, dflt);
  };
  w.stride = vec("strides", n, 1);
  w.dilation = vec("dilations", n, 1);
  Shape pads = vec("pads", 2 * n, 0);
  if (static_cast<int64_t>(w.stride.size()) != n ||
      static_cast<int64_t>(w.dilation.size()) != n ||
      static_cast<int64_t>(pads.size()) != 2 * n)
    return ctx.error("strides, dilations or pads do not match the " +
                     std::to_string(n) + " spatial dimensions");
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  w.padBegin.assign(pads.begin(), pads.begin() + n);
  w.padEnd.assign(pads.begin() + n, pads.end());
  for (int64_t d = 0; d < n; ++d) {
    if (w.stride[d] < 1 || w.dilation[d] < 1 || w.kernel[d] < 1)
      return ctx.error("strides, dilations and kernel sizes must be >= 1");
    int64_t span = (w.kernel[d] - 1) * w.dilation[d] + 1;
    int64_t in = w.in[d];
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t out = (in + w.stride[d] - 1) / w.stride[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[d] + span - in);
      w.padBegin[d] = autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      w.padEnd[d] = total - w.padBegin[d];
      w.out.push_back(out);
      continue;
    }
    if (autoPad == "VALID") {
      w.padBegin[d] = w.padEnd[d] = 0;
    } else if (autoPad != "NOTSET") {
      return ctx.error("unknown auto_pad '" + autoPad + "'");
    }
    int64_t avail = in + w.padBegin[d] + w.padEnd[d] - span;
    if (avail < 0)
      return ctx.error("the kernel is larger than the padded input");
    int64_t out = ceilMode ? (avail + w.stride[d] - 1) / w.stride[d] + 1
                           : avail / w.stride[d] + 1;
    // With ceil_mode, a last window that starts in the end padding is
    // dropped (as ONNX Runtime and PyTorch do).
    if (ceilMode && (out - 1) * w.stride[d] >= in + w.padBegin[d])
      --out;
    w.out.push_back(out);
  }
  return success();
}

/// Calls fn(outIndex, inOffsetOrMinus1, kernelIndex) for every output
/// position and kernel tap of one channel; -1 marks taps in the padding.
template <typename Fn> void forEachTap(const Window &w, Fn fn) {
  int64_t n = w.spatial();
  Shape inStrides = stridesOf(w.in);
  Shape o(n, 0), k(n, 0);
  int64_t outN = w.outSize(), kN = w.kernelSize();
  for (int64_t oi = 0; oi < outN; ++oi) {
    int64_t rem = oi;
    for (int64_t d = n - 1; d >= 0; --d) {
      o[d] = rem % w.out[d];
      rem /= w.out[d];
    }
    for (int64_t ki = 0; ki < kN; ++ki) {
      int64_t r = ki, off = 0;
      bool inside = true;
      for (int64_t d = n - 1; d >= 0; --d) {
        k[d] = r % w.kernel[d];
        r /= w.kernel[d];
      }
      for (int64_t d = 0; d < n; ++d) {
        int64_t c = o[d] * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
        if (c < 0 || c >= w.in[d]) {
          inside = false;
          break;
        }
        off += c * inStrides[d];
      }
      fn(oi, inside ? off : -1, ki);
    }
  }
}

/// im2col for one image and one group: col[c * K + k][o].
void im2col(const float *x, int64_t channels, const Window &w,
            std::vector<float> &col) {
  int64_t kN = w.kernelSize(), outN = w.outSize(), inN = w.inSize();
  col.assign(channels * kN * outN, 0.0f);
  // The tap offsets are the same for every channel: compute them once.
  std::vector<int64_t> offsets(kN * outN);
  forEachTap(w, [&](int64_t o, int64_t off, int64_t k) {
    offsets[k * outN + o] = off;
  });
  for (int64_t c = 0; c < channels; ++c) {
    const float *xc = x + c * inN;
    float *cc = col.data() + c * kN * outN;
    for (int64_t i = 0; i < kN * outN; ++i)
      cc[i] = offsets[i] >= 0 ? xc[offsets[i]] : 0.0f;
  }
}

LogicalResult convK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &wt = ctx.in(1);
  if (x.rank() < 3 || wt.rank() != x.rank())
    return ctx.error("X and W must have the same rank >= 3");
  int64_t group = ctx.getInt("group", 1);
  int64_t N = x.dim(0), C = x.dim(1), M = wt.dim(0);
  if (group < 1 || C % group || M % group || wt.dim(1) != C / group)
    return ctx.error("channels (" + std::to_string(C) + " in, W " +
                     shapeToString(wt.shape()) + ") do not match group " +
                     std::to_string(group));
  Shape kernel(wt.shape().drop_front(2));
  if (auto ks = ctx.getInts("kernel_shape"))
    if (Shape(ks->begin(), ks->end()) != kernel)
      return ctx.error("kernel_shape disagrees with W");
  Window w;
  if (failed(makeWindow(ctx, x.shape().drop_front(2), kernel, false, w)))
    return failure();
  Shape outShape = {N, M};
  outShape.append(w.out.begin(), w.out.end());
  Tensor y(x.dtype(), outShape);
  int64_t Cg = C / group, Mg = M / group, kN = w.kernelSize();
  int64_t inN = w.inSize(), outN = w.outSize();
  bool hasBias = ctx.has(2);
  if (x.dtype() == DataType::FLOAT) {
    std::vector<float> col;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < group; ++g) {
        im2col(x.data<float>() + (n * C + g * Cg) * inN, Cg, w, col);
        float *out = y.data<float>() + (n * M + g * Mg) * outN;
        gemmF32(false, false, Mg, outN, Cg * kN, 1.0f,
                wt.data<float>() + g * Mg * Cg * kN, Cg * kN, col.data(),
                outN, 0.0f, out, outN);
        if (hasBias)
          for (int64_t m = 0; m < Mg; ++m) {
            float b = ctx.in(2).data<float>()[g * Mg + m];
            for (int64_t o = 0; o < outN; ++o)
              out[m * outN + o] += b;
          }
      }
    ctx.set(0, y);
    return success();
  }
  if (!dispatch<kFloats>(x.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(x.dtype()));
  std::vector<double> acc(outN);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      int64_t g = m / Mg;
      double bias = hasBias ? ctx.in(2).getDouble(m) : 0;
      std::fill(acc.begin(), acc.end(), bias);
      for (int64_t c = 0; c < Cg; ++c) {
        int64_t xBase = (n * C + g * Cg + c) * inN;
        int64_t wBase = (m * Cg + c) * kN;
        forEachTap(w, [&](int64_t o, int64_t off, int64_t k) {
          if (off >= 0)
            acc[o] += x.getDouble(xBase + off) * wt.getDouble(wBase + k);
        });
      }
      for (int64_t o = 0; o < outN; ++o)
        y.setDouble((n * M + m) * outN + o, acc[o]);
    }
  ctx.set(0, y);
  return success();
}

LogicalResult convTransposeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &wt = ctx.in(1);
  if (x.rank() < 3 || wt.rank() != x.rank())
    return ctx.error("X and W must have the same rank >= 3");
  int64_t group = ctx.getInt("group", 1);
  int64_t N = x.dim(0), C = x.dim(1);
  if (group < 1 || wt.dim(0) != C || C % group)
    return ctx.error("W dimension 0 must equal the input channels");
  int64_t Cg = C / group, Mg = wt.dim(1), M = Mg * group;
  int64_t n = x.rank() - 2;
  Shape in(x.shape().drop_front(2)), kernel(wt.shape().drop_front(2));
  auto vec = [&](llvm::StringRef name, int64_t size, int64_t dflt) {
    auto v = ctx.getInts(name);
    return v ? Shape(v->begin(), v->end()) : Shape(size, dflt);
  };
  Shape stride = vec("strides", n, 1), dil = vec("dilations", n, 1);
  Shape pads = vec("pads", 2 * n, 0), outPad = vec("output_padding", n, 0);
  if (static_cast<int64_t>(pads.size()) != 2 * n ||
      static_cast<int64_t>(stride.size()) != n ||
      static_cast<int64_t>(dil.size()) != n ||
      static_cast<int64_t>(outPad.size()) != n)
    return ctx.error("attribute lengths do not match the spatial rank");
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  auto outputShape = ctx.getInts("output_shape");
  Shape padBegin(n), out(n);
  for (int64_t d = 0; d < n; ++d) {
    int64_t span = (kernel[d] - 1) * dil[d] + 1;
    int64_t full = stride[d] * (in[d] - 1) + outPad[d] + span;
    if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t want = outputShape ? (*outputShape)[outputShape->size() - n + d]
                                 : in[d] * stride[d];
      int64_t total = full - want;
      // A SAME output larger than the natural size (a kernel smaller than
      // the stride) keeps the natural size, as ONNX's shape inference and
      // ONNX Runtime do: padding is never negative there.
      if (!outputShape && total < 0) {
        total = 0;
        want = full;
      }
      // ONNX: SAME_UPPER puts the smaller half first; SAME_LOWER and an
      // output_shape without auto_pad put the larger half first. Halves
      // round down (the ONNX reference's floor division), so a negative
      // total (an output_shape past the natural size) pads the end.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      padBegin[d] = autoPad == "SAME_UPPER" ? half : total - half;
      out[d] = want;
    } else {
      padBegin[d] = pads[d];
      out[d] = full - pads[d] - pads[d + n];
    }
    if (out[d] < 0)
      return ctx.error("the output would have a negative size");
  }
  Shape outShape = {N, M};
  outShape.append(out.begin(), out.end());
  Tensor y(x.dtype(), outShape);
  if (!dispatch<kFloats>(x.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(x.dtype()));
  int64_t inN = numElements(in), outN = numElements(out);
  int64_t kN = numElements(kernel);
  Shape outStrides = stridesOf(out);
  std::vector<double> acc(N * M * outN, 0.0);
  Shape i(n), k(n);
  for (int64_t b = 0; b < N; ++b)
    for (int64_t c = 0; c < C; ++c) {
      int64_t g = c / Cg;
      for (int64_t ii = 0; ii < inN; ++ii) {
        double xv = x.getDouble((b * C + c) * inN + ii);
        if (xv == 0)
          continue;
        int64_t rem = ii;
        for (int64_t d = n - 1; d >= 0; --d) {
          i[d] = rem % in[d];
          rem /= in[d];
        }
        for (int64_t ki = 0; ki < kN; ++ki) {
          int64_t r = ki, off = 0;
          bool inside = true;
          for (int64_t d = n - 1; d >= 0; --d) {
            k[d] = r % kernel[d];
            r /= kernel[d];
          }
          for (int64_t d = 0; d < n; ++d) {
            int64_t o = i[d] * stride[d] + k[d] * dil[d] - padBegin[d];
            if (o < 0 || o >= out[d]) {
              inside = false;
              break;
            }
            off += o * outStrides[d];
          }
          if (!inside)
            continue;
          for (int64_t m = 0; m < Mg; ++m)
            acc[(b * M + g * Mg + m) * outN + off] +=
                xv * wt.getDouble((c * Mg + m) * kN + ki);
        }
      }
    }
  for (int64_t idx = 0; idx < N * M * outN; ++idx) {
    double bias = ctx.has(2) ? ctx.in(2).getDouble((idx / outN) % M) : 0;
    y.setDouble(idx, acc[idx] + bias);
  }
  ctx.set(0, y);
  return success();
}

enum class Pool { Max, Average, Lp };

LogicalResult pool(KernelContext &ctx, Pool kind) {
  const Tensor &x = ctx.in(0);
  if (x.rank() < 3)
    return ctx.error("input must have rank >= 3");
  auto ks = ctx.getInts("kernel_shape");
  if (!ks)
    return ctx.error("kernel_shape is required");
  if (static_cast<int64_t>(ks->size()) != x.rank() - 2)
    return ctx.error("kernel_shape does not match the spatial rank");
  Window w;
  if (failed(makeWindow(ctx, x.shape().drop_front(2),
                        Shape(ks->begin(), ks->end()),
                        ctx.getInt("ceil_mode", 0) != 0, w)))
    return failure();
  int64_t N = x.dim(0), C = x.dim(1), inN = w.inSize(), outN = w.outSize();
  Shape outShape = {N, C};
  outShape.append(w.out.begin(), w.out.end());
  Tensor y(x.dtype(), outShape);
  bool includePad = ctx.getInt("count_include_pad", 0) != 0;
  double p = static_cast<double>(ctx.getInt("p", 2));
  bool wantIdx = kind == Pool::Max && ctx.numOutputs() > 1 && ctx.wants(1);
  bool colMajor = ctx.getInt("storage_order", 0) != 0;
  Tensor indices = wantIdx ? Tensor(DataType::INT64, outShape) : Tensor();
  if (!dispatch<kFloats | kSigned | kUnsigned>(x.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(x.dtype()));
  // With count_include_pad, positions in the explicit padding count, but
  // not the extra ones ceil_mode adds past it.
  Shape inStrides = stridesOf(w.in);
  std::vector<double> acc(outN);
  std::vector<int64_t> count(outN), best(outN);
  for (int64_t nc = 0; nc < N * C; ++nc) {
    int64_t base = nc * inN;
    std::fill(acc.begin(), acc.end(),
              kind == Pool::Max ? -std::numeric_limits<double>::infinity()
                                : 0.0);
    std::fill(count.begin(), count.end(), 0);
    std::fill(best.begin(), best.end(), -1);
    forEachTap(w, [&](int64_t o, int64_t off, int64_t) {
      if (off < 0)
        return;
      double v = x.getDouble(base + off);
      if (kind == Pool::Max) {
        if (v > acc[o] || best[o] < 0) {
          acc[o] = v;
          best[o] = off;
        }
      } else if (kind == Pool::Average) {
        acc[o] += v;
        ++count[o];
      } else {
        acc[o] += std::pow(std::abs(v), p);
      }
    });
    if (kind == Pool::Average && includePad) {
      // Count taps inside [-padBegin, in + padEnd) per dimension.
      Shape oi(w.spatial());
      for (int64_t o = 0; o < outN; ++o) {
        int64_t rem = o, cnt = 1;
        for (int64_t d = w.spatial() - 1; d >= 0; --d) {
          oi[d] = rem % w.out[d];
          rem /= w.out[d];
        }
        for (int64_t d = 0; d < w.spatial(); ++d) {
          int64_t c = 0;
          for (int64_t k = 0; k < w.kernel[d]; ++k) {
            int64_t pos = oi[d] * w.stride[d] - w.padBegin[d] +
                          k * w.dilation[d];
            if (pos >= -w.padBegin[d] && pos < w.in[d] + w.padEnd[d])
              ++c;
          }
          cnt *= c;
        }
        count[o] = cnt;
      }
    }
    for (int64_t o = 0; o < outN; ++o) {
      double v = kind == Pool::Max       ? acc[o]
                 : kind == Pool::Average ? (count[o] ? acc[o] / count[o] : 0)
                                         : std::pow(acc[o], 1.0 / p);
      y.setDouble(nc * outN + o, v);
      if (wantIdx) {
        int64_t off = best[o];
        if (colMajor) {
          // Column-major index of the same position within the image.
          int64_t rem = off, col = 0, stride = 1;
          Shape pos(w.spatial());
          for (int64_t d = 0; d < w.spatial(); ++d) {
            pos[d] = rem / inStrides[d];
            rem %= inStrides[d];
          }
          for (int64_t d = 0; d < w.spatial(); ++d) {
            col += pos[d] * stride;
            stride *= w.in[d];
          }
          off = col;
        }
        indices.data<int64_t>()[nc * outN + o] = nc * inN + off;
      }
    }
  }
  ctx.set(0, y);
  if (wantIdx)
    ctx.set(1, indices);
  return success();
}

LogicalResult maxPoolK(KernelContext &ctx) { return pool(ctx, Pool::Max); }
LogicalResult averagePoolK(KernelContext &ctx) {
  return pool(ctx, Pool::Average);
}
LogicalResult lpPoolK(KernelContext &ctx) { return pool(ctx, Pool::Lp); }

LogicalResult globalPool(KernelContext &ctx, Pool kind) {
  const Tensor &x = ctx.in(0);
  if (x.rank() < 2)
    return ctx.error("input must have rank >= 2");
  int64_t N = x.dim(0), C = x.dim(1), inN = x.numel() / std::max<int64_t>(
                                                          N * C, 1);
  Shape outShape = {N, C};
  for (int64_t d = 2; d < x.rank(); ++d)
    outShape.push_back(1);
  Tensor y(x.dtype(), outShape);
  double p = static_cast<double>(ctx.getInt("p", 2));
  for (int64_t nc = 0; nc < N * C; ++nc) {
    double acc = kind == Pool::Max ? -std::numeric_limits<double>::infinity()
                                   : 0.0;
    for (int64_t i = 0; i < inN; ++i) {
      double v = x.getDouble(nc * inN + i);
      if (kind == Pool::Max)
        acc = std::max(acc, v);
      else if (kind == Pool::Average)
        acc += v;
      else
        acc += std::pow(std::abs(v), p);
    }
    y.setDouble(nc, kind == Pool::Max       ? acc
                    : kind == Pool::Average ? acc / inN
                                            : std::pow(acc, 1.0 / p));
  }
  ctx.set(0, y);
  return success();
}

LogicalResult globalAveragePoolK(KernelContext &ctx) {
  return globalPool(ctx, Pool::Average);
}
LogicalResult globalMaxPoolK(KernelContext &ctx) {
  return globalPool(ctx, Pool::Max);
}
LogicalResult globalLpPoolK(KernelContext &ctx) {
  return globalPool(ctx, Pool::Lp);
}

} // namespace

void registerConvPoolKernels(KernelRegistry &r) {
  r.add("Conv", convK);
  r.add("ConvTranspose", convTransposeK);
  r.add("MaxPool", maxPoolK);
  r.add("AveragePool", averagePoolK);
  r.add("LpPool", lpPoolK);
  r.add("GlobalAveragePool", globalAveragePoolK);
  r.add("GlobalMaxPool", globalMaxPoolK);
  r.add("GlobalLpPool", globalLpPoolK);
}

} // namespace amk::ref
