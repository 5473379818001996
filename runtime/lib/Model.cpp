//===- Model.cpp - The C API of compiled models (amk/model.h) ------------===//
//
// Part of AMK. A thin layer over the task-program runtime (amk/runtime.h):
// version checks between the caller's generated header, the compiled model
// and this runtime; the model's interface; sessions with options and
// traces; errors as codes plus a message.
//
//===----------------------------------------------------------------------===//

#include "amk/model.h"
#include "amk/runtime.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

struct amk_session {
  const amk_model *model = nullptr;
  amk_rt_session *rt = nullptr;
  std::string tracePath;
  std::string error;
};

namespace {

thread_local std::string lastCreateError;

amk_status fromRuntime(int rc) {
  switch (rc) {
  case AMK_RT_OK:
    return AMK_OK;
  case AMK_RT_INVALID_PROGRAM:
    return AMK_ERROR_INVALID_PROGRAM;
  case AMK_RT_INVALID_ARGUMENT:
    return AMK_ERROR_INVALID_ARGUMENT;
  case AMK_RT_KERNEL_ERROR:
    return AMK_ERROR_KERNEL;
  case AMK_RT_HANG:
    return AMK_ERROR_HANG;
  case AMK_RT_OUT_OF_MEMORY:
    return AMK_ERROR_OUT_OF_MEMORY;
  }
  return AMK_ERROR_INVALID_PROGRAM;
}

amk_status failCreate(amk_status status, std::string message) {
  lastCreateError = std::move(message);
  return status;
}

amk_status describe(const amk_model *model, uint32_t index, bool input,
                    amk_tensor_info *info) {
  if (!model || !info || !model->program)
    return AMK_ERROR_INVALID_ARGUMENT;
  const amk_rt_program *p = model->program;
  if (index >= (input ? p->num_inputs : p->num_outputs))
    return AMK_ERROR_INVALID_ARGUMENT;
  const amk_rt_io &io = (input ? p->inputs : p->outputs)[index];
  info->name = io.name;
  info->dtype = static_cast<amk_dtype>(io.dtype);
  info->rank = io.rank;
  info->dims = io.dims;
  info->bytes = io.bytes;
  return AMK_OK;
}

} // namespace

extern "C" {

void amk_session_options_init(amk_session_options *options) {
  if (!options)
    return;
  *options = amk_session_options{};
  options->struct_size = sizeof(amk_session_options);
}

uint32_t amk_model_num_inputs(const amk_model *model) {
  return model && model->program ? model->program->num_inputs : 0;
}

uint32_t amk_model_num_outputs(const amk_model *model) {
  return model && model->program ? model->program->num_outputs : 0;
}

amk_status amk_model_input(const amk_model *model, uint32_t index,
                           amk_tensor_info *info) {
  return describe(model, index, true, info);
}

amk_status amk_model_output(const amk_model *model, uint32_t index,
                            amk_tensor_info *info) {
  return describe(model, index, false, info);
}

const char *amk_model_name(const amk_model *model) {
  return model && model->name ? model->name : "";
}

const char *amk_model_pipeline(const amk_model *model) {
  return model && model->pipeline ? model->pipeline : "";
}

uint32_t amk_model_workers(const amk_model *model) {
  return model && model->program ? model->program->num_workers : 0;
}

} // extern "C"

namespace {

/// Header (the caller's), library (amk-compile's) and runtime (this code)
/// must agree on the API; the header must describe this build of the
/// model.
amk_status checkVersions(const amk_model *model, uint32_t headerApiVersion,
                         uint64_t headerModelHash) {
  std::string name = amk_model_name(model);
  if (headerApiVersion != AMK_MODEL_API_VERSION ||
      model->api_version != AMK_MODEL_API_VERSION)
    return failCreate(
        AMK_ERROR_VERSION_MISMATCH,
        "model '" + name + "': C API version mismatch: the header says " +
            std::to_string(headerApiVersion) + ", the compiled model " +
            std::to_string(model->api_version) + ", the AMK runtime " +
            std::to_string(AMK_MODEL_API_VERSION) +
            "; rebuild the model library and its header with this AMK");
  if (headerModelHash != model->hash) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "the header was generated for model hash %016" PRIx64
                  " but the library holds %016" PRIx64,
                  headerModelHash, model->hash);
    return failCreate(AMK_ERROR_VERSION_MISMATCH,
                      "model '" + name + "': " + buf +
                          "; use the header amk-compile wrote with this "
                          "library");
  }
  return AMK_OK;
}

/// What every session constructor checks first: the out-parameter, the
/// model, and the versions of header, library and runtime.
amk_status beginCreate(const amk_model *model, uint32_t headerApiVersion,
                       uint64_t headerModelHash, amk_session **session) {
  if (!session)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT, "session is null");
  *session = nullptr;
  if (!model || !model->program)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT, "model is null");
  return checkVersions(model, headerApiVersion, headerModelHash);
}

/// A session of `model` (one program) once its versions were checked.
amk_status createSession(const amk_model *model,
                         const amk_session_options *options,
                         amk_session **session) {
  std::string name = amk_model_name(model);
  if (model->program->abi_version != AMK_RT_ABI_VERSION)
    return failCreate(
        AMK_ERROR_VERSION_MISMATCH,
        "model '" + name + "': compiled for runtime ABI " +
            std::to_string(model->program->abi_version) +
            ", this runtime is ABI " + std::to_string(AMK_RT_ABI_VERSION) +
            "; recompile the model with this AMK");
  amk_session_options opts;
  amk_session_options_init(&opts);
  if (options) {
    if (options->struct_size < sizeof(size_t) ||
        options->struct_size > sizeof(amk_session_options))
      return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                        "amk_session_options.struct_size is " +
                            std::to_string(options->struct_size) +
                            "; call amk_session_options_init first");
    // Fields past the caller's struct_size keep their defaults.
    std::memcpy(&opts, options, options->struct_size);
  }
  uint32_t workers = model->program->num_workers;
  if (opts.threads != 0 && opts.threads != 1 && opts.threads != workers)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                      "model '" + name + "' was scheduled for " +
                          std::to_string(workers) + " workers; threads must "
                          "be 0 (that), 1 (the calling thread only) or " +
                          std::to_string(workers) +
                          ", not " + std::to_string(opts.threads) +
                          " (recompile with amk-compile --workers=" +
                          std::to_string(opts.threads) + ")");
  amk_rt_options rtOpts{};
  rtOpts.single_thread = opts.threads == 1 && workers != 1;
  rtOpts.trace = opts.trace_path != nullptr;
  rtOpts.hang_timeout_s = opts.hang_timeout_s;
  auto s = std::make_unique<amk_session>();
  s->model = model;
  if (opts.trace_path)
    s->tracePath = opts.trace_path;
  int rc = amk_rt_session_create(model->program, &rtOpts, &s->rt);
  if (rc != AMK_RT_OK)
    return failCreate(fromRuntime(rc), "model '" + name + "': " +
                                           amk_rt_error_message(nullptr));
  lastCreateError.clear();
  *session = s.release();
  return AMK_OK;
}

/// "x=[1,3,224,224], mask=[1,128]" for a program's inputs.
std::string describeInputs(const amk_rt_program *p) {
  std::string out;
  for (uint32_t i = 0; i < p->num_inputs; ++i) {
    out += (i ? ", " : "") + std::string(p->inputs[i].name) + "=[";
    for (uint32_t d = 0; d < p->inputs[i].rank; ++d)
      out += (d ? "," : "") + std::to_string(p->inputs[i].dims[d]);
    out += "]";
  }
  return out;
}

} // namespace

extern "C" {

amk_status amk_session_create(const amk_model *model,
                              uint32_t header_api_version,
                              uint64_t header_model_hash,
                              const amk_session_options *options,
                              amk_session **session) {
  if (amk_status st = beginCreate(model, header_api_version,
                                  header_model_hash, session))
    return st;
  return createSession(model, options, session);
}

uint32_t amk_model_num_variants(const amk_model *model) {
  if (!model || !model->program)
    return 0;
  return model->num_variants && model->variants ? model->num_variants : 1;
}

const amk_model *amk_model_variant(const amk_model *model, uint32_t index) {
  if (index >= amk_model_num_variants(model))
    return nullptr;
  return model->num_variants && model->variants ? model->variants[index]
                                                : model;
}

amk_status amk_session_create_for_shapes(
    const amk_model *model, uint32_t header_api_version,
    uint64_t header_model_hash, const amk_session_options *options,
    uint32_t num_inputs, const uint32_t *ranks, const int64_t *const *dims,
    amk_session **session) {
  if (amk_status st = beginCreate(model, header_api_version,
                                  header_model_hash, session))
    return st;
  std::string name = amk_model_name(model);
  if (num_inputs != model->program->num_inputs)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                      "model '" + name + "' has " +
                          std::to_string(model->program->num_inputs) +
                          " inputs, not " + std::to_string(num_inputs));
  if (num_inputs && (!ranks || !dims))
    return failCreate(AMK_ERROR_INVALID_ARGUMENT, "ranks or dims is null");
  std::string given, compiled;
  for (uint32_t i = 0; i < num_inputs; ++i) {
    given += (i ? ", " : "") + std::string(model->program->inputs[i].name) +
             "=[";
    for (uint32_t d = 0; d < ranks[i]; ++d) {
      if (!dims[i])
        return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                          "dims[" + std::to_string(i) + "] is null");
      given += (d ? "," : "") + std::to_string(dims[i][d]);
    }
    given += "]";
  }
  uint32_t n = amk_model_num_variants(model);
  for (uint32_t v = 0; v < n; ++v) {
    const amk_model *variant = amk_model_variant(model, v);
    if (!variant || !variant->program)
      return failCreate(AMK_ERROR_INVALID_PROGRAM,
                        "model '" + name + "': variant " + std::to_string(v) +
                            " is missing");
    const amk_rt_program *p = variant->program;
    bool match = p->num_inputs == num_inputs;
    for (uint32_t i = 0; match && i < num_inputs; ++i) {
      match = p->inputs[i].rank == ranks[i];
      for (uint32_t d = 0; match && d < ranks[i]; ++d)
        match = p->inputs[i].dims[d] == dims[i][d];
    }
    if (match)
      return createSession(variant, options, session);
    compiled += (v ? "; " : "") + describeInputs(p);
  }
  return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                    "model '" + name + "' has no variant for the input "
                    "shapes " + given + "; compiled variants: " + compiled +
                    " (amk-compile --input-shape/--dim, once per shape set)");
}

const amk_model *amk_session_model(const amk_session *session) {
  return session ? session->model : nullptr;
}

amk_status amk_session_run(amk_session *session, const void *const *inputs,
                           void *const *outputs) {
  if (!session)
    return AMK_ERROR_INVALID_ARGUMENT;
  const amk_rt_program *p = session->model->program;
  if ((p->num_inputs && !inputs) || (p->num_outputs && !outputs)) {
    session->error = "inputs or outputs is null";
    return AMK_ERROR_INVALID_ARGUMENT;
  }
  int rc = amk_rt_run(session->rt, inputs, outputs);
  if (rc != AMK_RT_OK) {
    session->error = amk_rt_error_message(session->rt);
    return fromRuntime(rc);
  }
  if (!session->tracePath.empty() &&
      amk_rt_write_trace(session->rt, session->tracePath.c_str()) != 0) {
    session->error = "cannot write the trace to '" + session->tracePath + "'";
    return AMK_ERROR_IO;
  }
  session->error.clear();
  return AMK_OK;
}

const char *amk_last_error(const amk_session *session) {
  return session ? session->error.c_str() : lastCreateError.c_str();
}

void amk_session_destroy(amk_session *session) {
  if (!session)
    return;
  amk_rt_session_destroy(session->rt);
  delete session;
}

} // extern "C"

namespace {

/// One program's input or output buffers, by index, and lookups by name.
struct Buffers {
  const amk_rt_program *p;
  bool inputs;
  std::vector<std::vector<char>> data;
  Buffers(const amk_rt_program *p, bool inputs) : p(p), inputs(inputs) {
    uint32_t n = inputs ? p->num_inputs : p->num_outputs;
    data.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      data[i].assign(std::max<uint64_t>(1, io(i).bytes), 0);
  }
  const amk_rt_io &io(uint32_t i) const {
    return (inputs ? p->inputs : p->outputs)[i];
  }
  uint32_t size() const { return (uint32_t)data.size(); }
  int find(const std::string &name) const {
    for (uint32_t i = 0; i < size(); ++i)
      if (name == io(i).name)
        return (int)i;
    return -1;
  }
  std::vector<void *> pointers() {
    std::vector<void *> out;
    for (auto &d : data)
      out.push_back(d.data());
    return out;
  }
};

/// Writes integer ids (int64 or int32 inputs) at element `at`.
void putInt(Buffers &b, int i, int64_t at, int64_t v) {
  if (b.io(i).dtype == AMK_RT_I32)
    reinterpret_cast<int32_t *>(b.data[i].data())[at] = (int32_t)v;
  else
    reinterpret_cast<int64_t *>(b.data[i].data())[at] = v;
}

bool isIntIds(const amk_rt_io &io) {
  return io.dtype == AMK_RT_I64 || io.dtype == AMK_RT_I32;
}

bool startsWith(const char *s, const char *prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

/// The greedy token of the last row of logits [1, S, V].
int64_t lastRowArgmax(const Buffers &out, int logits) {
  const amk_rt_io &io = out.io(logits);
  int64_t vocab = io.dims[io.rank - 1], rows = io.bytes / 4 / vocab;
  const float *row = reinterpret_cast<const float *>(out.data[logits].data()) +
                     (rows - 1) * vocab;
  return amk_rt_argmax_f32(row, vocab);
}

struct SessionGuard {
  amk_session *s = nullptr;
  ~SessionGuard() { amk_session_destroy(s); }
};

} // namespace

extern "C" {

amk_status amk_model_generate(const amk_model *model,
                              uint32_t header_api_version,
                              uint64_t header_model_hash,
                              const amk_session_options *options,
                              const int64_t *prompt, uint32_t prompt_len,
                              uint32_t steps, int64_t *tokens) {
  if (!model || !model->program)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT, "model is null");
  if (amk_status st =
          checkVersions(model, header_api_version, header_model_hash))
    return st;
  if (!prompt || !tokens || prompt_len == 0 || steps == 0)
    return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                      "amk_model_generate needs a prompt, at least one "
                      "step and a tokens array");
  std::string name = amk_model_name(model);
  // The decode variant has the cache position input amk-kv-cache adds; the
  // prefill is the variant for this prompt length.
  const amk_model *prefill = nullptr, *decode = nullptr;
  std::string compiled;
  for (uint32_t v = 0; v < amk_model_num_variants(model); ++v) {
    const amk_model *m = amk_model_variant(model, v);
    const amk_rt_program *p = m->program;
    compiled += (v ? "; " : "") + describeInputs(p);
    bool isDecode = false;
    for (uint32_t i = 0; i < p->num_inputs; ++i)
      isDecode |= std::strcmp(p->inputs[i].name, "cache_position") == 0;
    if (isDecode) {
      decode = m;
      continue;
    }
    for (uint32_t i = 0; i < p->num_inputs; ++i)
      if (std::strcmp(p->inputs[i].name, "input_ids") == 0 &&
          p->inputs[i].rank == 2 && p->inputs[i].dims[1] == prompt_len)
        prefill = m;
  }
  if (!decode || !prefill)
    return failCreate(
        AMK_ERROR_INVALID_ARGUMENT,
        "model '" + name + "' has no " +
            (decode ? "prefill variant for a prompt of " +
                          std::to_string(prompt_len) + " tokens"
                    : std::string("decode variant (an input named "
                                  "cache_position)")) +
            "; compile it with amk-compile --generate-prompt-len " +
            std::to_string(prompt_len) +
            " --max-context T; its variants: " + compiled);
  SessionGuard ps, ds;
  if (amk_status st = createSession(prefill, options, &ps.s))
    return st;
  if (amk_status st = createSession(decode, options, &ds.s))
    return st;

  Buffers pin(prefill->program, true), pout(prefill->program, false);
  Buffers din(decode->program, true), dout(decode->program, false);
  int pIds = pin.find("input_ids"), pLogits = pout.find("logits"),
      dIds = din.find("input_ids"), dLogits = dout.find("logits"),
      dPos = din.find("cache_position");
  auto bad = [&](const std::string &why) {
    return failCreate(AMK_ERROR_INVALID_ARGUMENT,
                      "model '" + name + "': " + why);
  };
  if (pIds < 0 || pLogits < 0 || dIds < 0 || dLogits < 0 ||
      !isIntIds(pin.io(pIds)) || !isIntIds(din.io(dIds)) ||
      pout.io(pLogits).dtype != AMK_RT_F32 ||
      dout.io(dLogits).dtype != AMK_RT_F32)
    return bad("not a decoder in Optimum's interface (input_ids and float "
               "logits in both variants)");
  const amk_rt_io &dl = dout.io(dLogits);
  int64_t vocab = dl.dims[dl.rank - 1];
  for (uint32_t i = 0; i < prompt_len; ++i)
    if (prompt[i] < 0 || prompt[i] >= vocab)
      return bad("prompt token " + std::to_string(prompt[i]) +
                 " is outside the vocabulary [0, " + std::to_string(vocab) +
                 ")");
  // Each cache input and the present output written into it.
  struct Cache {
    int in, out, prefillOut;
    int64_t heads, slots, headDim;
  };
  std::vector<Cache> caches;
  int64_t T = 0;
  for (uint32_t i = 0; i < din.size(); ++i) {
    const amk_rt_io &io = din.io(i);
    std::string n = io.name;
    if (n == "input_ids" || n == "cache_position")
      continue;
    if (n == "attention_mask" || n == "position_ids") {
      if (!isIntIds(io))
        return bad("input '" + n + "' is not int64 or int32");
      continue;
    }
    const char *prefix = "past_key_values.";
    if (!startsWith(io.name, prefix) || io.rank != 4 || io.dtype != AMK_RT_F32)
      return bad("amk_model_generate does not know what to feed input '" + n +
                 "' (it feeds input_ids, attention_mask, position_ids, "
                 "cache_position and float past_key_values.N.key/value)");
    std::string present = "present." + n.substr(std::strlen(prefix));
    int out = dout.find(present), pOut = pout.find(present);
    if (out < 0 || pOut < 0 || dout.io(out).bytes != io.bytes)
      return bad("cache input '" + n + "' has no output '" + present +
                 "' of its size to write it in place");
    caches.push_back({(int)i, out, pOut, io.dims[1], io.dims[2], io.dims[3]});
    T = io.dims[2];
  }
  if (caches.empty() || dPos < 0)
    return bad("the decode variant has no KV cache (amk-kv-cache)");
  if (prompt_len + steps - 1 > T)
    return bad("a cache of " + std::to_string(T) +
               " slots cannot hold a "
               "prompt of " +
               std::to_string(prompt_len) + " and " + std::to_string(steps) +
               " generated tokens");

  // The prefill: the prompt, an all-ones mask, positions 0..P-1, an empty
  // past.
  for (uint32_t i = 0; i < prompt_len; ++i)
    putInt(pin, pIds, i, prompt[i]);
  if (int m = pin.find("attention_mask"); m >= 0)
    for (uint32_t i = 0; i < prompt_len; ++i)
      putInt(pin, m, i, 1);
  if (int m = pin.find("position_ids"); m >= 0)
    for (uint32_t i = 0; i < prompt_len; ++i)
      putInt(pin, m, i, i);
  std::vector<void *> pinPtr = pin.pointers(), poutPtr = pout.pointers();
  amk_session *prefillSession = ps.s, *decodeSession = ds.s;
  auto runOne = [&](amk_session *s, std::vector<void *> &in,
                    std::vector<void *> &out) {
    amk_status st = amk_session_run(s, in.data(), out.data());
    if (st != AMK_OK)
      failCreate(st, "model '" + name + "': " + amk_last_error(s));
    return st;
  };
  if (amk_status st = runOne(prefillSession, pinPtr, poutPtr))
    return st;
  tokens[0] = lastRowArgmax(pout, pLogits);

  // The prompt's keys and values into slots [0, P) of the caches, the
  // other slots zero (masked slots still enter the softmax sums times 0).
  for (const Cache &c : caches) {
    float *dst = reinterpret_cast<float *>(din.data[c.in].data());
    const float *src =
        reinterpret_cast<const float *>(pout.data[c.prefillOut].data());
    const amk_rt_io &pio = pout.io(c.prefillOut);
    if (pio.rank != 4 || pio.dims[2] != prompt_len || pio.dims[1] != c.heads ||
        pio.dims[3] != c.headDim)
      return bad("the prefill's '" + std::string(pio.name) +
                 "' is not [1, heads, prompt, head size]");
    for (int64_t h = 0; h < c.heads; ++h)
      std::memcpy(dst + h * c.slots * c.headDim,
                  src + h * prompt_len * c.headDim,
                  prompt_len * c.headDim * sizeof(float));
  }
  int dMask = din.find("attention_mask"), dPositions = din.find("position_ids");
  if (dMask >= 0)
    for (uint32_t i = 0; i < prompt_len; ++i)
      putInt(din, dMask, i, 1);
  std::vector<void *> dinPtr = din.pointers(), doutPtr = dout.pointers();
  // In place: each present output is its cache input's buffer.
  for (const Cache &c : caches)
    doutPtr[c.out] = dinPtr[c.in];
  for (uint32_t step = 1; step < steps; ++step) {
    int64_t pos = prompt_len + step - 1;
    putInt(din, dIds, 0, tokens[step - 1]);
    if (dPositions >= 0)
      putInt(din, dPositions, 0, pos);
    if (dMask >= 0)
      putInt(din, dMask, pos, 1);
    putInt(din, dPos, 0, pos);
    if (amk_status st = runOne(decodeSession, dinPtr, doutPtr))
      return st;
    tokens[step] = lastRowArgmax(dout, dLogits);
  }
  lastCreateError.clear();
  return AMK_OK;
}

} // extern "C"
