//===- GuardedInference.cpp - libonnx shape inference in a child ----------===//
//
// Part of AMK. See GuardedInference.h. The child inherits the model by
// fork (copy on write: no serialization of the weights), runs the
// inference, and sends back a skeleton of the model: every graph's inputs,
// outputs and value_info, and the node/attribute structure that leads to
// the subgraphs, nothing else. The parent copies those fields into its own
// model, which libonnx never touched.
//
//===----------------------------------------------------------------------===//

#include "translate/GuardedInference.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

// Present in sanitizer builds only: an error the sanitizer finds in the
// child must end the child, not run the parent's death callbacks (a fuzzer
// would record the parent's input as its own crash).
extern "C" __attribute__((weak)) void
__sanitizer_set_death_callback(void (*callback)(void));

namespace amk {
namespace {

constexpr int kChildSanitizerExit = 86;

void buildSkeleton(const ::onnx::GraphProto &g, ::onnx::GraphProto &s) {
  *s.mutable_input() = g.input();
  *s.mutable_output() = g.output();
  *s.mutable_value_info() = g.value_info();
  for (const auto &node : g.node()) {
    ::onnx::NodeProto *sn = s.add_node();
    for (const auto &attr : node.attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0)
        continue;
      ::onnx::AttributeProto *sa = sn->add_attribute();
      if (attr.has_g())
        buildSkeleton(attr.g(), *sa->mutable_g());
      for (const auto &sub : attr.graphs())
        buildSkeleton(sub, *sa->add_graphs());
    }
  }
}

bool mergeSkeleton(::onnx::GraphProto &g, const ::onnx::GraphProto &s) {
  if (s.input_size() != g.input_size() || s.output_size() != g.output_size() ||
      s.node_size() != g.node_size())
    return false;
  *g.mutable_input() = s.input();
  *g.mutable_output() = s.output();
  *g.mutable_value_info() = s.value_info();
  for (int n = 0; n < g.node_size(); ++n) {
    const ::onnx::NodeProto &sn = s.node(n);
    int next = 0;
    for (auto &attr : *g.mutable_node(n)->mutable_attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0)
        continue;
      if (next >= sn.attribute_size())
        return false;
      const ::onnx::AttributeProto &sa = sn.attribute(next++);
      if (attr.has_g() != sa.has_g() || attr.graphs_size() != sa.graphs_size())
        return false;
      if (attr.has_g() && !mergeSkeleton(*attr.mutable_g(), sa.g()))
        return false;
      for (int i = 0; i < attr.graphs_size(); ++i)
        if (!mergeSkeleton(*attr.mutable_graphs(i), sa.graphs(i)))
          return false;
    }
    if (next != sn.attribute_size())
      return false;
  }
  return true;
}

/// 'T' + serialized skeleton, or 'E' + libonnx's message.
std::string inferAndDescribe(::onnx::ModelProto &model) {
  try {
    ::onnx::ShapeInferenceOptions options(/*check_type=*/false,
                                          /*error_mode=*/0,
                                          /*data_prop=*/true);
    ::onnx::shape_inference::InferShapes(
        model, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    return std::string("E") + e.what();
  }
  ::onnx::ModelProto skeleton;
  buildSkeleton(model.graph(), *skeleton.mutable_graph());
  return "T" + skeleton.SerializeAsString();
}

GuardedInference applyReply(::onnx::ModelProto &model,
                            const std::string &reply) {
  if (!reply.empty() && reply[0] == 'E')
    return {GuardedInference::Rejected, reply.substr(1)};
  ::onnx::ModelProto skeleton;
  if (reply.empty() || reply[0] != 'T' ||
      !skeleton.ParseFromArray(reply.data() + 1, int(reply.size() - 1)))
    return {GuardedInference::Crashed, "sent a malformed result"};
  // Weights moved to graph inputs for the request (stripWeights) come
  // back as extra top-level inputs: dropped.
  auto *inputs = skeleton.mutable_graph()->mutable_input();
  while (inputs->size() > model.graph().input_size())
    inputs->RemoveLast();
  if (!mergeSkeleton(*model.mutable_graph(), skeleton.graph()))
    return {GuardedInference::Crashed, "sent a result for another model"};
  return {GuardedInference::Inferred, ""};
}

/// The request: the model without its large top-level initializers, which
/// become typed graph inputs. No inference rule reads the values of a
/// tensor that large (shape operands are tiny), and the request stays
/// small for a model with a gigabyte of weights.
std::string serializeRequest(::onnx::ModelProto &model) {
  constexpr int64_t kKeepElements = 1 << 16;
  ::onnx::GraphProto *g = model.mutable_graph();
  // The initializers are set aside (not copied) and put back afterwards.
  google::protobuf::RepeatedPtrField<::onnx::TensorProto> all;
  all.Swap(g->mutable_initializer());
  int originalInputs = g->input_size();
  std::set<std::string> inputs;
  for (const auto &in : g->input())
    inputs.insert(in.name());
  for (const auto &init : all) {
    // -1: a negative or absurd element count (the importer refuses it
    // later with the tensor's name); stop multiplying at once.
    int64_t n = 1;
    for (int64_t d : init.dims()) {
      if (d < 0 || (d > 0 && n > (int64_t(1) << 40) / d)) {
        n = -1;
        break;
      }
      n *= d;
    }
    if (n >= 0 && n <= kKeepElements) {
      *g->add_initializer() = init;
      continue;
    }
    if (inputs.count(init.name()))
      continue;
    ::onnx::ValueInfoProto *vi = g->add_input();
    vi->set_name(init.name());
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(init.data_type());
    auto *shape = tt->mutable_shape();
    for (int64_t d : init.dims())
      shape->add_dim()->set_dim_value(d);
  }
  std::string bytes = model.SerializeAsString();
  g->mutable_input()->DeleteSubrange(originalInputs,
                                     g->input_size() - originalInputs);
  g->clear_initializer();
  g->mutable_initializer()->Swap(&all);
  return bytes;
}

bool sendAll(int fd, const char *p, size_t left) {
  while (left > 0) {
    ssize_t n = send(fd, p, left, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    left -= size_t(n);
  }
  return true;
}

bool sendMessage(int fd, const std::string &bytes) {
  uint64_t size = bytes.size();
  return sendAll(fd, reinterpret_cast<const char *>(&size), sizeof(size)) &&
         sendAll(fd, bytes.data(), bytes.size());
}

/// Reads exactly `size` bytes; `deadline` bounds the wait (none: forever).
enum class ReadStatus { Ok, Closed, TimedOut };
ReadStatus
recvAll(int fd, char *p, size_t size,
        std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (size > 0) {
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      *deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0)
        return ReadStatus::TimedOut;
      struct pollfd pfd = {fd, POLLIN, 0};
      int r = poll(&pfd, 1, int(std::min<long long>(left, 1 << 30)));
      if (r < 0 && errno == EINTR)
        continue;
      if (r == 0)
        return ReadStatus::TimedOut;
    }
    ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return ReadStatus::Closed;
    p += n;
    size -= size_t(n);
  }
  return ReadStatus::Ok;
}

ReadStatus
recvMessage(int fd, std::string &bytes,
            std::optional<std::chrono::steady_clock::time_point> deadline) {
  uint64_t size = 0;
  ReadStatus s =
      recvAll(fd, reinterpret_cast<char *>(&size), sizeof(size), deadline);
  if (s != ReadStatus::Ok)
    return s;
  if (size > (uint64_t(1) << 34))
    return ReadStatus::Closed;
  bytes.resize(size);
  return recvAll(fd, bytes.data(), size, deadline);
}

/// The server: one request at a time until the parent closes the socket.
[[noreturn]] void serverMain(int fd) {
  // A crash ends this process quietly: no core file, no sanitizer or
  // fuzzer handler of the parent's.
  struct rlimit noCore = {0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(sig, SIG_DFL);
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(+[] { _exit(kChildSanitizerExit); });
  std::string request;
  while (recvMessage(fd, request, std::nullopt) == ReadStatus::Ok) {
    ::onnx::ModelProto model;
    std::string reply =
        model.ParseFromString(request)
            ? inferAndDescribe(model)
            : std::string("Ethe inference process could not read the model");
    if (!sendMessage(fd, reply))
      break;
  }
  _exit(0);
}

std::string describeStatus(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char *name = strsignal(sig);
    return "crashed (signal " + std::to_string(sig) + ", " +
           (name ? name : "unknown") + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildSanitizerExit)
    return "crashed (a sanitizer report)";
  return "ended with exit status " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/// The process that runs libonnx's inference, forked once and reused (a
/// fork per model costs milliseconds in a large process, tens in a
/// sanitized one); a crashed or stuck server is replaced on the next use.
class Server {
public:
  ~Server() { stop(/*kill=*/false); }

  GuardedInference infer(::onnx::ModelProto &model, unsigned timeoutSeconds) {
    std::lock_guard<std::mutex> lock(mutex);
    if (pid <= 0 && !start())
      return applyReply(model, inferAndDescribe(model));
    std::string reply;
    if (!sendMessage(fd, serializeRequest(model)))
      return died();
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    switch (recvMessage(fd, reply, deadline)) {
    case ReadStatus::Ok:
      return applyReply(model, reply);
    case ReadStatus::Closed:
      return died();
    case ReadStatus::TimedOut:
      stop(/*kill=*/true);
      return {GuardedInference::TimedOut,
              "ran past its limit of " + std::to_string(timeoutSeconds) + " s"};
    }
    return died();
  }

private:
  bool start() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      return false;
    pid_t child = fork();
    if (child < 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    if (child == 0) {
      close(fds[0]);
      serverMain(fds[1]);
    }
    close(fds[1]);
    pid = child;
    fd = fds[0];
    return true;
  }

  /// Closes the socket (the server exits on EOF) or kills it; reaps it.
  int stop(bool kill) {
    int status = 0;
    if (pid <= 0)
      return status;
    if (kill)
      ::kill(pid, SIGKILL);
    close(fd);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    fd = -1;
    return status;
  }

  GuardedInference died() {
    return {GuardedInference::Crashed, describeStatus(stop(/*kill=*/true))};
  }

  std::mutex mutex;
  pid_t pid = -1;
  int fd = -1;
};

} // namespace

GuardedInference inferShapesGuarded(::onnx::ModelProto &model,
                                    unsigned timeoutSeconds) {
  static Server server;
  return server.infer(model, timeoutSeconds);
}

} // namespace amk
