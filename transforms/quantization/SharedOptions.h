//===- SharedOptions.h - The options both quantization passes read -*- C++ -*-===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_QUANTIZATION_SHAREDOPTIONS_H
#define AMK_TRANSFORMS_QUANTIZATION_SHAREDOPTIONS_H

#include "transforms/Utils/PassUtils.h"
#include "transforms/quantization/QuantOptions.h"
#include "transforms/quantization/Quantization.h"

#include <optional>
#include <string>

namespace amk::quant {

/// The spelling of an enum option the user gave (givenOption), if any.
template <typename E, typename P>
std::optional<std::string>
givenName(const mlir::detail::PassOptions::Option<E, P> &option) {
  std::optional<E> v = amk::givenOption(option);
  if (!v)
    return std::nullopt;
  return stringify(*v).str();
}

/// The config overrides of the options amk-calibrate and amk-insert-qdq
/// share (QuantConfigOptions in Passes.td); each pass passes its own (they
/// are protected members of its generated base).
template <typename TypeOpt, typename BoolOpt, typename ListOpt>
ConfigOverrides sharedOverrides(const std::string &config,
                                const TypeOpt &activationType,
                                const TypeOpt &weightType,
                                const BoolOpt &perChannel,
                                const BoolOpt &symmetricActivations,
                                const ListOpt &quantizedOps,
                                const ListOpt &keepFloat) {
  ConfigOverrides o;
  o.configFile = config;
  o.activationType = givenName(activationType);
  o.weightType = givenName(weightType);
  o.perChannel = amk::givenOption(perChannel);
  o.symmetricActivations = amk::givenOption(symmetricActivations);
  o.quantizedOps.assign(quantizedOps.begin(), quantizedOps.end());
  o.keepFloat.assign(keepFloat.begin(), keepFloat.end());
  return o;
}

} // namespace amk::quant

#endif // AMK_TRANSFORMS_QUANTIZATION_SHAREDOPTIONS_H
