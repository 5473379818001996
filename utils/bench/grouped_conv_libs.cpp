//===- grouped_conv_libs.cpp - oneDNN on the grouped layers ---------------===//
//
// Part of AMK. oneDNN's float32 grouped convolution on ResNeXt-50's and
// RegNetY-400MF's grouped 3x3 layers, one thread, to set against AMK's
// CONV variant 4 (docs/runtime.md, twenty-seventh session). Each layer is
// first run in plain NCHW and checked against a double loop (1e-4 of the
// output's scale), then timed twice: NCHW in and out, and in the layouts
// oneDNN picks for itself (format `any`, reorders not timed: its best
// case). Prints one line per layer: median microseconds of each.
//
// Build: clang++-22 -O2 -std=c++17 grouped_conv_libs.cpp -ldnnl -o /tmp/gcl
// Run:   OMP_NUM_THREADS=1 /tmp/gcl
//
//===----------------------------------------------------------------------===//

#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace dnnl;

namespace {

struct Layer {
  const char *name;
  int c, h, oc, group, stride;
};

/// Median microseconds of `reps` runs of `fn` after `warmup`.
template <typename F> double medianUs(F fn, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i)
    fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    fn();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

} // namespace

int main() {
  const Layer layers[] = {
      {"resnext50 layer1 conv2 (4/group)", 128, 56, 128, 32, 1},
      {"resnext50 layer2.0 conv2 (8/group, s2)", 256, 56, 256, 32, 2},
      {"resnext50 layer2 conv2 (8/group)", 256, 28, 256, 32, 1},
      {"resnext50 layer3 conv2 (16/group)", 512, 14, 512, 32, 1},
      {"resnext50 layer4 conv2 (32/group)", 1024, 7, 1024, 32, 1},
      {"regnet block2 b (8/group)", 104, 28, 104, 13, 1},
      {"regnet block3 b (8/group)", 208, 14, 208, 26, 1},
      {"regnet block4 b (8/group)", 440, 7, 440, 55, 1}};
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  int status = 0;
  for (const Layer &l : layers) {
    const int oh = (l.h + 2 - 3) / l.stride + 1, icg = l.c / l.group,
              ocg = l.oc / l.group;
    memory::dims src{1, l.c, l.h, l.h}, wei{l.group, ocg, icg, 3, 3}, bia{l.oc},
        dst{1, l.oc, oh, oh}, strides{l.stride, l.stride}, pad{1, 1};
    std::vector<float> x(l.c * l.h * l.h), w(l.oc * icg * 9), b(l.oc),
        y(l.oc * oh * oh);
    for (auto *v : {&x, &w, &b})
      for (float &f : *v)
        f = dist(rng);
    double plainUs = 0, anyUs = 0;
    for (bool plain : {true, false}) {
      const auto tag = memory::format_tag::any;
      memory::desc sMd(src, memory::data_type::f32,
                       plain ? memory::format_tag::nchw : tag),
          wMd(wei, memory::data_type::f32,
              plain ? memory::format_tag::goihw : tag),
          bMd(bia, memory::data_type::f32, memory::format_tag::x),
          dMd(dst, memory::data_type::f32,
              plain ? memory::format_tag::nchw : tag);
      convolution_forward::desc d(prop_kind::forward_inference,
                                  algorithm::convolution_direct, sMd, wMd, bMd,
                                  dMd, strides, pad, pad);
      convolution_forward::primitive_desc pd(d, eng);
      memory sM(pd.src_desc(), eng), wM(pd.weights_desc(), eng),
          bM(pd.bias_desc(), eng), dM(pd.dst_desc(), eng);
      // Plain data into whatever layout oneDNN chose (reorders untimed).
      auto fill = [&](memory &m, std::vector<float> &v, memory::dims dims,
                      memory::format_tag t) {
        memory user({dims, memory::data_type::f32, t}, eng, v.data());
        reorder(user, m).execute(strm, user, m);
      };
      fill(sM, x, src, memory::format_tag::nchw);
      fill(wM, w, wei, memory::format_tag::goihw);
      fill(bM, b, bia, memory::format_tag::x);
      convolution_forward conv(pd);
      auto run = [&] {
        conv.execute(strm, {{DNNL_ARG_SRC, sM},
                            {DNNL_ARG_WEIGHTS, wM},
                            {DNNL_ARG_BIAS, bM},
                            {DNNL_ARG_DST, dM}});
        strm.wait();
      };
      run();
      if (plain) {
        // The correctness check before any figure.
        memory user({dst, memory::data_type::f32, memory::format_tag::nchw},
                    eng, y.data());
        reorder(dM, user).execute(strm, dM, user);
        strm.wait();
        double scale = 0, err = 0;
        for (int o = 0; o < l.oc; ++o)
          for (int oy = 0; oy < oh; ++oy)
            for (int ox = 0; ox < oh; ++ox) {
              double acc = b[o];
              for (int j = 0; j < icg; ++j)
                for (int ky = 0; ky < 3; ++ky)
                  for (int kx = 0; kx < 3; ++kx) {
                    int iy = oy * l.stride - 1 + ky,
                        ix = ox * l.stride - 1 + kx;
                    if (iy >= 0 && iy < l.h && ix >= 0 && ix < l.h)
                      acc += (double)w[((o * icg + j) * 3 + ky) * 3 + kx] *
                             x[((o / ocg * icg + j) * l.h + iy) * l.h + ix];
                  }
              scale = std::max(scale, std::fabs(acc));
              err = std::max(err, std::fabs(acc - y[(o * oh + oy) * oh + ox]));
            }
        if (err > 1e-4 * scale) {
          std::printf("%s: oneDNN differs from the loop (%g of %g)\n", l.name,
                      err, scale);
          status = 1;
          break;
        }
        plainUs = medianUs(run, 5, 41);
      } else {
        anyUs = medianUs(run, 5, 41);
      }
    }
    const double gflop = 2.0 * l.oc * oh * oh * icg * 9 / 1e9;
    std::printf("%-40s oneDNN nchw %8.1f us (%5.1f GFLOP/s)  own layout %8.1f "
                "us (%5.1f GFLOP/s)\n",
                l.name, plainUs, gflop / plainUs * 1e6, anyUs,
                gflop / anyUs * 1e6);
  }
  return status;
}
