//===- Image.cpp - ImageDecoder -------------------------------------------===//
//
// Part of AMK. Decodes with stb_image (Debian's libstb): JPEG (baseline and
// progressive), PNG, BMP, GIF (first frame), TGA and PNM. The other formats
// ImageDecoder names (TIFF, WebP, JPEG 2000) are refused as unsupported.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <stb/stb_image.h>

using namespace mlir;

namespace amk::ref {
namespace {

LogicalResult imageDecoderK(KernelContext &ctx) {
  const Tensor &in = ctx.in(0);
  if (in.dtype() != DataType::UINT8 || in.rank() != 1)
    return ctx.error("encoded_stream must be a 1-D uint8 tensor");
  std::string format = ctx.getString("pixel_format", "RGB");
  int want = format == "Grayscale" ? 1 : 3;
  if (format != "RGB" && format != "BGR" && format != "Grayscale")
    return ctx.error("pixel_format must be RGB, BGR or Grayscale");
  int w = 0, h = 0, channels = 0;
  unsigned char *pixels = stbi_load_from_memory(
      in.data<unsigned char>(), static_cast<int>(in.numel()), &w, &h,
      &channels, want);
  if (!pixels)
    return ctx.unsupported(std::string("cannot decode the image: ") +
                           stbi_failure_reason());
  Tensor y(DataType::UINT8, {h, w, want});
  for (int64_t i = 0; i < int64_t(h) * w; ++i)
    for (int c = 0; c < want; ++c)
      y.data<uint8_t>()[i * want + c] =
          pixels[i * want + (format == "BGR" ? 2 - c : c)];
  stbi_image_free(pixels);
  ctx.set(0, y);
  return success();
}

} // namespace

void registerImageKernels(KernelRegistry &r) {
  r.add("ImageDecoder", imageDecoderK);
}

} // namespace amk::ref
