//===- Recurrent.cpp - RNN, GRU and LSTM ----------------------------------===//
//
// Part of AMK. One implementation for the three cells: per direction and
// batch entry, steps run over that entry's sequence length (forward or
// reversed); positions past it produce zeros in Y and leave the state
// unchanged. Gate pre-activations are clipped when `clip` is set.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "llvm/ADT/StringSwitch.h"

#include <functional>
#include <vector>

using namespace mlir;

namespace amk::ref {
namespace {

using Activation = std::function<double(double)>;

/// Activation functions by name; those with parameters take them from the
/// activation_alpha / activation_beta lists in order of use.
FailureOr<std::vector<Activation>>
makeActivations(KernelContext &ctx, std::vector<std::string> names) {
  auto alphas = ctx.getFloats("activation_alpha").value_or(
      std::vector<float>{});
  auto betas =
      ctx.getFloats("activation_beta").value_or(std::vector<float>{});
  size_t ai = 0, bi = 0;
  auto alpha = [&](double dflt) {
    return ai < alphas.size() ? double(alphas[ai++]) : dflt;
  };
  auto beta = [&](double dflt) {
    return bi < betas.size() ? double(betas[bi++]) : dflt;
  };
  std::vector<Activation> out;
  for (const std::string &n : names) {
    std::string name = llvm::StringRef(n).lower();
    if (name == "sigmoid")
      out.push_back([](double x) { return 1 / (1 + std::exp(-x)); });
    else if (name == "tanh")
      out.push_back([](double x) { return std::tanh(x); });
    else if (name == "relu")
      out.push_back([](double x) { return std::max(0.0, x); });
    else if (name == "affine") {
      double a = alpha(1), b = beta(0);
      out.push_back([a, b](double x) { return a * x + b; });
    } else if (name == "leakyrelu") {
      double a = alpha(0.01);
      out.push_back([a](double x) { return x >= 0 ? x : a * x; });
    } else if (name == "thresholdedrelu") {
      double a = alpha(1);
      out.push_back([a](double x) { return x > a ? x : 0; });
    } else if (name == "scaledtanh") {
      double a = alpha(1), b = beta(1);
      out.push_back([a, b](double x) { return a * std::tanh(b * x); });
    } else if (name == "hardsigmoid") {
      double a = alpha(0.2), b = beta(0.5);
      out.push_back([a, b](double x) {
        return std::max(0.0, std::min(1.0, a * x + b));
      });
    } else if (name == "elu") {
      double a = alpha(1);
      out.push_back(
          [a](double x) { return x >= 0 ? x : a * (std::exp(x) - 1); });
    } else if (name == "softsign")
      out.push_back([](double x) { return x / (1 + std::abs(x)); });
    else if (name == "softplus")
      out.push_back([](double x) { return std::log1p(std::exp(x)); });
    else
      return ctx.error("unknown activation '" + n + "'");
  }
  return out;
}

enum class Cell { RNN, GRU, LSTM };

LogicalResult recurrent(KernelContext &ctx, Cell cell) {
  const Tensor &x0 = ctx.in(0), &W = ctx.in(1), &R = ctx.in(2);
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  bool layout1 = ctx.getInt("layout", 0) != 0;
  std::string direction = ctx.getString("direction", "forward");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && dirs == 1)
    return ctx.error("unknown direction '" + direction + "'");
  if (x0.rank() != 3 || W.rank() != 3 || R.rank() != 3 || W.dim(0) != dirs)
    return ctx.error("X, W and R must be 3-D with one W per direction");
  int64_t seq = layout1 ? x0.dim(1) : x0.dim(0);
  int64_t batch = layout1 ? x0.dim(0) : x0.dim(1);
  int64_t in = x0.dim(2);
  int64_t H = ctx.getInt("hidden_size", R.dim(2));
  if (W.dim(1) != gates * H || W.dim(2) != in || R.dim(1) != gates * H ||
      R.dim(2) != H)
    return ctx.error("W or R do not match hidden_size " + std::to_string(H));
  double clip = ctx.getFloat("clip", 0.0f);
  bool clipping = ctx.hasAttr("clip");
  bool linearBeforeReset = ctx.getInt("linear_before_reset", 0) != 0;
  bool inputForget = ctx.getInt("input_forget", 0) != 0;

  std::vector<std::string> names = ctx.getStrings("activations");
  std::vector<std::string> defaults =
      cell == Cell::LSTM  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : cell == Cell::GRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
                          : std::vector<std::string>{"Tanh"};
  if (names.empty())
    for (int64_t d = 0; d < dirs; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != defaults.size() * dirs)
    return ctx.error("expected " + std::to_string(defaults.size() * dirs) +
                     " activations");
  auto acts = makeActivations(ctx, names);
  if (failed(acts))
    return failure();

  // Everything in double, in [seq][batch][...] order.
  auto xAt = [&](int64_t t, int64_t b, int64_t i) {
    return layout1 ? x0.getDouble((b * seq + t) * in + i)
                   : x0.getDouble((t * batch + b) * in + i);
  };
  auto stateAt = [&](unsigned input, int64_t d, int64_t b, int64_t h) {
    if (!ctx.has(input))
      return 0.0;
    const Tensor &s = ctx.in(input);
    return layout1 ? s.getDouble((b * dirs + d) * H + h)
                   : s.getDouble((d * batch + b) * H + h);
  };
  std::vector<int64_t> lens(batch, seq);
  if (ctx.has(4))
    for (int64_t b = 0; b < batch; ++b)
      lens[b] = std::clamp<int64_t>(ctx.in(4).getInt(b), 0, seq);

  DataType dt = x0.dtype();
  Shape yShape = layout1 ? Shape{batch, seq, dirs, H}
                         : Shape{seq, dirs, batch, H};
  Shape hShape = layout1 ? Shape{batch, dirs, H} : Shape{dirs, batch, H};
  Tensor Y(dt, yShape), Yh(dt, hShape), Yc(dt, hShape);
  auto yIdx = [&](int64_t t, int64_t d, int64_t b, int64_t h) {
    return layout1 ? ((b * seq + t) * dirs + d) * H + h
                   : ((t * dirs + d) * batch + b) * H + h;
  };
  auto hIdx = [&](int64_t d, int64_t b, int64_t h) {
    return layout1 ? (b * dirs + d) * H + h : (d * batch + b) * H + h;
  };
  auto clipped = [&](double v) {
    return clipping ? std::clamp(v, -clip, clip) : v;
  };

  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const Activation *f = &(*acts)[d * defaults.size()];
    auto w = [&](int64_t g, int64_t h, int64_t i) {
      return W.getDouble(((d * gates + g) * H + h) * in + i);
    };
    auto r = [&](int64_t g, int64_t h, int64_t k) {
      return R.getDouble(((d * gates + g) * H + h) * H + k);
    };
    auto bias = [&](int64_t half, int64_t g, int64_t h) {
      return ctx.has(3)
                 ? ctx.in(3).getDouble((d * 2 + half) * gates * H + g * H + h)
                 : 0.0;
    };
    auto peep = [&](int64_t g, int64_t h) {
      return cell == Cell::LSTM && ctx.has(7)
                 ? ctx.in(7).getDouble((d * 3 + g) * H + h)
                 : 0.0;
    };
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<double> hs(H), cs(H), xw(gates * H), hr(gates * H);
      for (int64_t h = 0; h < H; ++h) {
        hs[h] = stateAt(5, d, b, h);
        cs[h] = stateAt(6, d, b, h);
      }
      for (int64_t step = 0; step < lens[b]; ++step) {
        int64_t t = reverse ? lens[b] - 1 - step : step;
        for (int64_t g = 0; g < gates; ++g)
          for (int64_t h = 0; h < H; ++h) {
            double a = bias(0, g, h), c = bias(1, g, h);
            for (int64_t i = 0; i < in; ++i)
              a += xAt(t, b, i) * w(g, h, i);
            for (int64_t k = 0; k < H; ++k)
              c += hs[k] * r(g, h, k);
            xw[g * H + h] = a;
            hr[g * H + h] = c;
          }
        std::vector<double> hn(H), cn(H);
        for (int64_t h = 0; h < H; ++h) {
          if (cell == Cell::RNN) {
            hn[h] = f[0](clipped(xw[h] + hr[h]));
          } else if (cell == Cell::GRU) {
            // Gates z, r, h.
            double z = f[0](clipped(xw[h] + hr[h]));
            double rg = f[0](clipped(xw[H + h] + hr[H + h]));
            double cand;
            if (linearBeforeReset) {
              cand = xw[2 * H + h] + rg * hr[2 * H + h];
            } else {
              double acc = bias(1, 2, h);
              for (int64_t k = 0; k < H; ++k) {
                double rk = f[0](clipped(xw[H + k] + hr[H + k]));
                acc += rk * hs[k] * r(2, h, k);
              }
              cand = xw[2 * H + h] + acc;
            }
            double ht = f[1](clipped(cand));
            hn[h] = (1 - z) * ht + z * hs[h];
          } else {
            // Gates i, o, f, c; peepholes i, o, f.
            double fg = f[0](clipped(xw[2 * H + h] + hr[2 * H + h] +
                                     peep(2, h) * cs[h]));
            double ig = inputForget
                            ? 1 - fg
                            : f[0](clipped(xw[h] + hr[h] + peep(0, h) * cs[h]));
            double cg = f[1](clipped(xw[3 * H + h] + hr[3 * H + h]));
            cn[h] = fg * cs[h] + ig * cg;
            double og = f[0](clipped(xw[H + h] + hr[H + h] + peep(1, h) * cn[h]));
            hn[h] = og * f[2](cn[h]);
          }
        }
        hs = hn;
        if (cell == Cell::LSTM)
          cs = cn;
        for (int64_t h = 0; h < H; ++h)
          Y.setDouble(yIdx(t, d, b, h), hs[h]);
      }
      for (int64_t h = 0; h < H; ++h) {
        Yh.setDouble(hIdx(d, b, h), hs[h]);
        Yc.setDouble(hIdx(d, b, h), cs[h]);
      }
    }
  }
  if (ctx.wants(0))
    ctx.set(0, Y);
  if (ctx.numOutputs() > 1 && ctx.wants(1))
    ctx.set(1, Yh);
  if (cell == Cell::LSTM && ctx.numOutputs() > 2 && ctx.wants(2))
    ctx.set(2, Yc);
  return success();
}

LogicalResult rnnK(KernelContext &ctx) { return recurrent(ctx, Cell::RNN); }
LogicalResult gruK(KernelContext &ctx) { return recurrent(ctx, Cell::GRU); }
LogicalResult lstmK(KernelContext &ctx) { return recurrent(ctx, Cell::LSTM); }

} // namespace

void registerRecurrentKernels(KernelRegistry &r) {
  r.add("RNN", rnnK);
  r.add("GRU", gruK);
  r.add("LSTM", lstmK);
}

} // namespace amk::ref
