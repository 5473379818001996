//===- GuardedInference.h - libonnx shape inference in a child --*- C++ -*-===//
//
// Part of AMK. Debian's libonnx has inference functions that crash on legal
// or hostile models (MaxUnpool with an index input of unknown rank is a
// null dereference in onnx::maxUnpoolShapeInference). The importer may not
// crash, so the inference runs in a forked child process; the types it
// infers come back through a pipe. docs/security.md explains the choice.
//
// Only the protobuf-facing library includes this header.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSLATE_GUARDEDINFERENCE_H
#define AMK_TRANSLATE_GUARDEDINFERENCE_H

#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace amk {

struct GuardedInference {
  enum Outcome {
    /// The inferred types are now in the model.
    Inferred,
    /// libonnx threw: the model's shapes or types are inconsistent.
    Rejected,
    /// The child died (signal or sanitizer report); the model is unchanged.
    Crashed,
    /// The child ran past the time limit and was killed.
    TimedOut,
  };
  Outcome outcome;
  /// Rejected: libonnx's message. Crashed/TimedOut: what happened.
  std::string message;
};

/// Runs onnx::shape_inference::InferShapes (types not checked, data
/// propagation on) on `model` in a child process, then copies the value
/// types it inferred (value_info, graph inputs and outputs, at every
/// subgraph depth) into `model`. When the process cannot fork, the
/// inference runs in this process instead.
GuardedInference inferShapesGuarded(::onnx::ModelProto &model,
                                    unsigned timeoutSeconds);

} // namespace amk

#endif // AMK_TRANSLATE_GUARDEDINFERENCE_H
