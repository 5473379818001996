//===- Segments.cpp - Models cut where sizes depend on data ---------------===//
//
// Part of AMK.
//
// A graph runs in rounds. Each round looks at the ops not run yet: it builds
// a function of them whose arguments are the values already computed (with
// their concrete shapes), infers shapes, and takes as the segment every op
// that is static and depends only on the arguments and on other segment
// ops. The segment is compiled (once per round and input shapes: the plan
// cache), run, and the ops at the cut whose inputs are then all known run on
// the host. Constants are never passed between rounds: each round's function
// holds its own copy of every constant (and constant-only computation) it
// uses, so weights stay constants the scheduler can pack.
//
//===----------------------------------------------------------------------===//

#include "execution/Segments.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "dialect/ONNX/ONNXTypes.h"
#include "execution/Inputs.h"
#include "reference/Interpreter.h"
#include "transforms/graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <map>

using namespace mlir;
using namespace amk;
using ref::RValue;
using ref::Tensor;
using Clock = std::chrono::steady_clock;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Segments computing fewer FLOPs than this run on the calling thread.
/// Measured on a Loop of 1000 iterations over a 4x3 body: 3.8 us per
/// segment run on one thread against 6.5 us waking a second worker.
static constexpr double kSmallSegmentFlops = 1e5;

/// Attribute naming a cloned op's index in its graph's op list.
static constexpr llvm::StringLiteral kSegAttr = "amk.segment_op";

//===----------------------------------------------------------------------===//
// Which ops a segment can hold
//===----------------------------------------------------------------------===//

/// Ops whose result sizes depend on the values they read, or that run a
/// body a data-dependent number of times: always at a cut.
static bool isHostKind(Operation *op) {
  if (isa<onnx::LoopOp, onnx::ScanOp, onnx::SequenceMapOp, onnx::NonZeroOp,
          onnx::UniqueOp, onnx::NonMaxSuppressionOp>(op))
    return true;
  // Versions without a typed op (Scan-8) and bodies of any other op.
  if (auto g = dyn_cast<onnx::GenericOp>(op))
    return op->getNumRegions() != 0 ||
           llvm::is_contained(
               {"Loop", "Scan", "NonZero", "Unique", "NonMaxSuppression"},
               g.getOpType());
  return false;
}

/// A type a task program's buffers hold: none, or a statically shaped
/// tensor of numbers or bools.
static bool isStaticTensorType(Type t) {
  if (isa<NoneType>(t))
    return true;
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return false;
  auto dt = onnx::getDataType(rt.getElementType());
  return dt && *dt != onnx::DataType::STRING;
}

/// Whether `op` (its nested ops included) can be compiled once its
/// operands are known: static types everywhere, nothing that needs a cut.
static bool isSegmentable(Operation *op) {
  if (isHostKind(op))
    return false;
  for (Type t : op->getResultTypes())
    if (!isStaticTensorType(t))
      return false;
  for (Type t : op->getOperandTypes())
    if (!isStaticTensorType(t))
      return false;
  for (Region &r : op->getRegions())
    for (Operation &inner : r.getOps())
      if (!isa<onnx::YieldOp>(inner) && !isSegmentable(&inner))
        return false;
  return true;
}

/// Ops whose value is the same in every run: constants and what is computed
/// from constants alone (no random generators, no bodies).
static bool isConstLike(Operation *op, DenseMap<Operation *, bool> &memo) {
  if (isa<onnx::ConstantOp, onnx::NoValueOp>(op))
    return true;
  if (op->getNumOperands() == 0 || op->getNumRegions() != 0 ||
      op->getName().getStringRef().contains("Random") ||
      isa<onnx::BernoulliOp, onnx::MultinomialOp>(op))
    return false;
  auto it = memo.find(op);
  if (it != memo.end())
    return it->second;
  bool all = true;
  for (Value v : op->getOperands()) {
    Operation *d = v.getDefiningOp();
    if (!d || !isConstLike(d, memo)) {
      all = false;
      break;
    }
  }
  return memo[op] = all;
}

/// Values `op` reads: its operands, then the values its bodies use from
/// outside it, each once.
static SmallVector<Value> externalUses(Operation *op) {
  llvm::SetVector<Value> uses;
  for (Value v : op->getOperands())
    uses.insert(v);
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands()) {
      Region *r = v.getParentRegion();
      if (!op->isProperAncestor(r ? r->getParentOp() : nullptr) &&
          !(r && r->getParentOp() == op))
        uses.insert(v);
    }
  });
  return uses.takeVector();
}

/// The element type and shape of a value computed at run time.
static Type typeOfValue(const RValue &v, Value original) {
  // Optionals and sequences keep their types (an optional's value is a
  // tensor or none).
  if (!v.isTensor() || !isa<TensorType>(original.getType()))
    return original.getType();
  const Tensor &t = v.getTensor();
  Type e = onnx::getElementType(original.getContext(), (int32_t)t.dtype());
  if (!e)
    return original.getType();
  return RankedTensorType::get(t.shape(), e);
}

static std::string describeValueShape(const RValue &v) {
  if (v.isNone())
    return "none";
  if (!v.isTensor())
    return "seq" + std::to_string(v.getSequence().size());
  const Tensor &t = v.getTensor();
  std::string s = std::to_string((int)t.dtype()) + ":";
  for (auto [d, n] : llvm::enumerate(t.shape()))
    s += (d ? "x" : "") + std::to_string(n);
  return s;
}

//===----------------------------------------------------------------------===//
// Graphs, plans, values
//===----------------------------------------------------------------------===//

namespace {

/// A graph: the main function's body or a body of If/Loop/Scan.
struct Graph {
  unsigned id = 0;
  Block *block = nullptr;
  /// The ops that run (not constant-like), in order, and what they read.
  std::vector<Operation *> ops;
  std::vector<SmallVector<Value>> uses;
  DenseMap<Operation *, unsigned> index;
  /// The graph's results (the terminator's operands).
  SmallVector<Value> results;
};

/// What one round of a graph does for given input shapes.
struct Plan {
  /// Values the segment reads (its function's arguments) and writes.
  std::vector<Value> inputs, outputs;
  /// Null when the round compiles nothing (only host ops).
  std::unique_ptr<ProgramCache::Entry> segment;
  /// Ops the host runs after the segment, in graph order.
  std::vector<Operation *> host;
  llvm::BitVector executedAfter;
};

/// Values computed so far in a graph and the graphs enclosing it.
struct Env {
  DenseMap<Value, RValue> values;
  const Env *parent = nullptr;
  const RValue *find(Value v) const {
    for (const Env *e = this; e; e = e->parent) {
      auto it = e->values.find(v);
      if (it != e->values.end())
        return &it->second;
    }
    return nullptr;
  }
};

} // namespace

struct SegmentedModel::Impl {
  Impl(ModuleOp model, const RunOptions &options, SegmentStats &stats)
      : model(model.clone()), options(options), stats(stats) {
    main = this->model->lookupSymbol<func::FuncOp>("main_graph");
    if (!main)
      for (auto f : this->model->getOps<func::FuncOp>())
        main = f;
  }

  OwningOpRef<ModuleOp> model;
  func::FuncOp main;
  RunOptions options;
  SegmentStats &stats;
  std::map<Block *, std::unique_ptr<Graph>> graphs;
  std::map<std::string, std::unique_ptr<Plan>> plans;
  DenseMap<Operation *, bool> constMemo;
  /// Constant-like values, evaluated once when the host needs them.
  DenseMap<Value, RValue> constants;
  llvm::DenseSet<Operation *> hostSeen;

  bool constLike(Value v) {
    Operation *d = v.getDefiningOp();
    return d && isConstLike(d, constMemo);
  }

  Graph &graphOf(Block &block) {
    auto &g = graphs[&block];
    if (g)
      return *g;
    g = std::make_unique<Graph>();
    g->id = graphs.size();
    g->block = &block;
    for (Operation &op : block.without_terminator()) {
      if (isConstLike(&op, constMemo))
        continue;
      g->index[&op] = g->ops.size();
      g->ops.push_back(&op);
      g->uses.push_back(externalUses(&op));
    }
    for (Value v : block.getTerminator()->getOperands())
      g->results.push_back(v);
    return *g;
  }

  llvm::Expected<RValue> lookup(Value v, const Env &env);
  llvm::Expected<std::vector<RValue>> runGraph(Graph &g, Env &env);
  llvm::Expected<Plan *> plan(Graph &g, const llvm::BitVector &executed,
                              const std::vector<Value> &inputs, Env &env,
                              const std::string &key);
  llvm::Error runHostOp(Operation *op, Env &env);
  std::vector<Value> inputsOf(Graph &g, const llvm::BitVector &executed);
};

llvm::Expected<RValue> SegmentedModel::Impl::lookup(Value v, const Env &env) {
  if (const RValue *r = env.find(v))
    return *r;
  auto it = constants.find(v);
  if (it != constants.end())
    return it->second;
  Operation *d = v.getDefiningOp();
  if (!d || !isConstLike(d, constMemo))
    return error("internal error: a value of " +
                 (d ? onnx::describeOp(d) : std::string("a graph input")) +
                 " is used before it is computed");
  if (isa<onnx::NoValueOp>(d))
    return constants[v] = RValue::none();
  std::vector<RValue> ins;
  for (Value o : d->getOperands()) {
    auto r = lookup(o, env);
    if (!r)
      return r.takeError();
    ins.push_back(*r);
  }
  ref::RunFailure why;
  auto outs = ref::Interpreter::evaluate(d, ins, &why);
  if (failed(outs))
    return error(why.message);
  for (auto [res, val] : llvm::zip(d->getResults(), *outs))
    constants[res] = val;
  return constants[v];
}

/// The values a round reads from earlier rounds and enclosing graphs, in a
/// fixed order (its function's arguments before pruning).
std::vector<Value> SegmentedModel::Impl::inputsOf(Graph &g,
                                                  const llvm::BitVector &done) {
  llvm::SetVector<Value> in;
  auto add = [&](Value v) {
    if (constLike(v))
      return;
    if (Operation *d = v.getDefiningOp()) {
      auto it = g.index.find(d);
      if (it != g.index.end() && !done.test(it->second))
        return; // computed in this round or later
    }
    in.insert(v);
  };
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (!done.test(i))
      for (Value v : g.uses[i])
        add(v);
  for (Value v : g.results)
    add(v);
  return std::vector<Value>(in.begin(), in.end());
}

llvm::Error SegmentedModel::Impl::runHostOp(Operation *op, Env &env) {
  std::vector<RValue> ins;
  for (Value v : op->getOperands()) {
    auto r = lookup(v, env);
    if (!r)
      return r.takeError();
    ins.push_back(std::move(*r));
  }
  // Bodies run as graphs of their own, segmented in turn, seeing `env`.
  uint64_t bodyRuns = 0;
  ref::RegionRunner bodies =
      [&](Region &r, llvm::ArrayRef<RValue> args,
          std::string &why) -> FailureOr<std::vector<RValue>> {
    if (++bodyRuns > options.maxLoopIterations) {
      why = onnx::describeOp(op) + ": ran its body more than " +
            std::to_string(options.maxLoopIterations) +
            " times (the limit; amk-run --max-loop-iterations)";
      return failure();
    }
    Block &b = r.front();
    if (args.size() != b.getNumArguments()) {
      why = onnx::describeOp(op) + ": the body expects " +
            std::to_string(b.getNumArguments()) + " inputs, got " +
            std::to_string(args.size());
      return failure();
    }
    Env inner;
    inner.parent = &env;
    for (auto [a, v] : llvm::zip(b.getArguments(), args))
      inner.values[a] = v;
    auto outs = runGraph(graphOf(b), inner);
    if (!outs) {
      why = llvm::toString(outs.takeError());
      return failure();
    }
    return std::move(*outs);
  };
  // Host time is the op's own: what its bodies ran is counted where it
  // ran.
  double segmentsBefore = stats.segmentSeconds, hostBefore = stats.hostSeconds;
  auto start = Clock::now();
  ref::RunFailure why;
  auto outs = ref::Interpreter::evaluate(op, ins, bodies, &why);
  stats.hostSeconds += secondsSince(start) -
                       (stats.segmentSeconds - segmentsBefore) -
                       (stats.hostSeconds - hostBefore);
  ++stats.hostRuns;
  if (hostSeen.insert(op).second)
    stats.hostOps.push_back(onnx::describeOp(op));
  if (failed(outs))
    return error(why.message);
  for (auto [res, val] : llvm::zip(op->getResults(), *outs))
    env.values[res] = std::move(val);
  return llvm::Error::success();
}

llvm::Expected<std::vector<RValue>> SegmentedModel::Impl::runGraph(Graph &g,
                                                                   Env &env) {
  llvm::BitVector done(g.ops.size());
  while (!done.all()) {
    std::vector<Value> inputs = inputsOf(g, done);
    // The plan depends on what has run and on the inputs' types and shapes.
    std::string key = std::to_string(g.id) + "|";
    for (unsigned w = 0; w < g.ops.size(); w += 32) {
      uint32_t bits = 0;
      for (unsigned b = 0; b < 32 && w + b < g.ops.size(); ++b)
        bits |= (uint32_t)done.test(w + b) << b;
      key += std::to_string(bits) + ".";
    }
    std::vector<RValue> values;
    for (Value v : inputs) {
      auto r = lookup(v, env);
      if (!r)
        return r.takeError();
      key += "|" + describeValueShape(*r);
      values.push_back(std::move(*r));
    }
    Plan *p = nullptr;
    auto it = plans.find(key);
    if (it != plans.end()) {
      p = it->second.get();
    } else {
      auto made = plan(g, done, inputs, env, key);
      if (!made)
        return made.takeError();
      p = *made;
    }
    if (p->segment) {
      std::vector<RValue> args;
      for (Value v : p->inputs) {
        auto r = lookup(v, env);
        if (!r)
          return r.takeError();
        args.push_back(std::move(*r));
      }
      Session &s = *p->segment->session;
      if (p->segment->uses++) {
        s.freshOutputs();
        s.clearInputs();
      }
      auto set = s.bindInputs(args);
      if (!set)
        return set.takeError();
      auto seconds = s.run(*set);
      if (!seconds)
        return seconds.takeError();
      stats.segmentSeconds += *seconds;
      ++stats.segmentRuns;
      std::vector<RValue> outs = s.takeOutputs();
      for (auto [v, o] : llvm::zip(p->outputs, outs))
        env.values[v] = std::move(o);
    }
    for (Operation *op : p->host)
      if (llvm::Error e = runHostOp(op, env))
        return std::move(e);
    done = p->executedAfter;
  }
  std::vector<RValue> results;
  for (Value v : g.results) {
    auto r = lookup(v, env);
    if (!r)
      return r.takeError();
    results.push_back(std::move(*r));
  }
  return results;
}

llvm::Expected<Plan *>
SegmentedModel::Impl::plan(Graph &g, const llvm::BitVector &done,
                           const std::vector<Value> &inputs, Env &env,
                           const std::string &key) {
  MLIRContext *ctx = model->getContext();
  Location loc = main ? main.getLoc() : UnknownLoc::get(ctx);
  auto plan = std::make_unique<Plan>();

  // The round's function: the ops not run yet, over the values known.
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  for (NamedAttribute a : (*model)->getAttrs())
    if (a.getName() != SymbolTable::getSymbolAttrName())
      (*module)->setAttr(a.getName(), a.getValue());
  SmallVector<Type> argTypes;
  for (Value v : inputs) {
    auto r = lookup(v, env);
    if (!r)
      return r.takeError();
    argTypes.push_back(typeOfValue(*r, v));
  }
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, "main_graph",
                                   b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    map.map(v, body->getArgument(i));
    std::string name = onnx::getTensorName(v).str();
    func.setArgAttr(i, onnx::kNameAttr,
                    b.getStringAttr(llvm::formatv("{0}#{1}", name, i).str()));
  }
  b.setInsertionPointToEnd(body);
  std::function<void(Value)> materialize = [&](Value v) {
    if (map.contains(v) || !constLike(v))
      return;
    Operation *d = v.getDefiningOp();
    for (Value o : d->getOperands())
      materialize(o);
    b.clone(*d, map);
  };
  for (unsigned i = 0; i < g.ops.size(); ++i) {
    if (done.test(i))
      continue;
    for (Value v : g.uses[i])
      materialize(v);
    Operation *c = b.clone(*g.ops[i], map);
    c->setAttr(kSegAttr, b.getI64IntegerAttr(i));
  }
  for (Value v : g.results)
    materialize(v);
  SmallVector<Value> rets;
  for (Value v : g.results)
    rets.push_back(map.lookup(v));
  auto ret = func::ReturnOp::create(b, loc, rets);
  func.setType(b.getFunctionType(argTypes, ValueRange(rets).getTypes()));

  {
    PassManager pm(ctx);
    pm.addPass(createInferShapes());
    if (failed(pm.run(*module)))
      return error("shape inference failed on the graph after the values "
                   "computed so far (see the errors above)");
  }

  // The segment: static ops over the arguments and each other.
  std::vector<Operation *> clones(g.ops.size(), nullptr);
  llvm::BitVector inS(g.ops.size());
  for (Operation &op : body->without_terminator()) {
    auto idx = op.getAttrOfType<IntegerAttr>(kSegAttr);
    if (!idx)
      continue;
    unsigned i = idx.getInt();
    clones[i] = &op;
    if (!isSegmentable(&op))
      continue;
    bool ready = true;
    for (Value v : externalUses(&op)) {
      Operation *d = v.getDefiningOp();
      if (!d)
        continue; // an argument
      auto di = d->getAttrOfType<IntegerAttr>(kSegAttr);
      if (di && !inS.test(di.getInt())) {
        ready = false;
        break;
      }
    }
    if (ready)
      inS.set(i);
  }
  // Ops shape inference folded away are done too: a later op that needs
  // one of their values has it recomputed on the host (they are small).
  llvm::BitVector folded(g.ops.size());
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (!done.test(i) && !clones[i])
      folded.set(i);
  llvm::BitVector later(g.ops.size()); // ops left for the host or later
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (!done.test(i) && clones[i] && !inS.test(i))
      later.set(i);

  // What the segment must hand on: values the later ops and the graph's
  // results read.
  llvm::SetVector<Value> outgoing;
  llvm::BitVector refold(g.ops.size());
  std::function<void(Value)> need = [&](Value v) {
    if (constLike(v))
      return;
    Operation *d = v.getDefiningOp();
    auto it = d ? g.index.find(d) : g.index.end();
    if (it == g.index.end())
      return; // an argument, or a value of an enclosing graph
    unsigned i = it->second;
    if (done.test(i) || later.test(i))
      return;
    if (folded.test(i)) {
      if (!refold.test(i)) {
        refold.set(i);
        for (Value u : g.uses[i])
          need(u);
      }
      return;
    }
    outgoing.insert(v);
  };
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (later.test(i))
      for (Value v : g.uses[i])
        need(v);
  for (Value v : g.results)
    need(v);
  // A fold can read an op that did not fold (Shape(x)[1] folds when x's
  // dim 1 is static, Shape(x) does not when another dim is dynamic): such
  // a fold cannot be recomputed until that op has run, so it waits for a
  // later round, not marked done. Graph order: uses come first.
  auto knownAfterSegment = [&](Value v) {
    if (constLike(v))
      return true;
    Operation *d = v.getDefiningOp();
    auto it = d ? g.index.find(d) : g.index.end();
    if (it == g.index.end())
      return true;
    unsigned i = it->second;
    return done.test(i) || inS.test(i) || refold.test(i);
  };
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (refold.test(i) && !llvm::all_of(g.uses[i], knownAfterSegment)) {
      refold.reset(i);
      folded.reset(i);
    }

  // Host ops: the recomputed folds, then the ops at the cut whose inputs
  // are all known once the segment has run (ops behind them wait for the
  // next round, where they can be compiled).
  for (unsigned i = 0; i < g.ops.size(); ++i)
    if (refold.test(i))
      plan->host.push_back(g.ops[i]);
  llvm::BitVector hostNow(g.ops.size());
  for (unsigned i = 0; i < g.ops.size(); ++i) {
    if (!later.test(i))
      continue;
    if (llvm::all_of(g.uses[i], knownAfterSegment)) {
      hostNow.set(i);
      plan->host.push_back(g.ops[i]);
    }
  }
  // Folded ops recomputed on the host come before the cut's ops in graph
  // order, as each may read the other's results.
  std::stable_sort(
      plan->host.begin(), plan->host.end(),
      [&](Operation *a, Operation *c) { return g.index[a] < g.index[c]; });
  if (inS.none() && hostNow.none() && refold.none() && folded.none())
    return error("internal error: no op of the graph can run next");

  // Make the round's function the segment: return what is handed on,
  // drop the rest.
  if (!outgoing.empty()) {
    SmallVector<Value> outs;
    for (Value v : outgoing) {
      auto r = cast<OpResult>(v);
      Operation *c = clones[g.index[r.getOwner()]];
      outs.push_back(c->getResult(r.getResultNumber()));
      plan->outputs.push_back(v);
    }
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, loc, outs);
    ret.erase();
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(body->getOperations()))) {
      auto idx = op.getAttrOfType<IntegerAttr>(kSegAttr);
      if (idx && !inS.test(idx.getInt())) {
        op.dropAllUses();
        op.erase();
      }
    }
    // The marks are not ONNX attributes; the opset normalization refuses
    // attributes it does not know.
    body->walk([](Operation *op) { op->removeAttr(kSegAttr); });
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument a : body->getArguments())
      if (a.use_empty())
        unused.set(a.getArgNumber());
    for (unsigned i = 0; i < inputs.size(); ++i)
      if (!unused.test(i))
        plan->inputs.push_back(inputs[i]);
    if (failed(func.eraseArguments(unused)))
      return error("internal error: cannot prune a segment's arguments");
    SmallVector<Type> outTypes(ValueRange(outs).getTypes());
    func.setType(b.getFunctionType(func.getArgumentTypes(), outTypes));
    for (unsigned i = 0; i < outs.size(); ++i)
      func.setResultAttr(
          i, onnx::kNameAttr,
          b.getStringAttr(llvm::formatv("{0}#out{1}",
                                        onnx::getTensorName(plan->outputs[i]),
                                        i)
                              .str()));
    std::vector<RValue> args;
    for (Value v : plan->inputs) {
      auto r = lookup(v, env);
      if (!r)
        return r.takeError();
      args.push_back(*r);
    }
    auto entry = std::make_unique<ProgramCache::Entry>();
    entry->key = key;
    RunOptions o = options;
    o.cache = nullptr;
    auto start = Clock::now();
    if (llvm::Error e = compileForInputs(*module, func, args, o, *entry))
      return std::move(e);
    // A segment of a few thousand operations (a loop body's scalar
    // arithmetic) costs less than waking the workers: it runs on the
    // calling thread, in program order.
    ProgramStats ps =
        statsOf(entry->compiled.program, entry->session->program());
    if (!o.singleThread && ps.flops && *ps.flops < kSmallSegmentFlops) {
      amk_rt_options ropts{};
      ropts.single_thread = true;
      ropts.hang_timeout_s = o.hangTimeout;
      entry->session.reset();
      auto single =
          Session::create(*entry->compiled.loaded, entry->jit.get(), ropts);
      if (!single)
        return single.takeError();
      entry->session = std::move(*single);
    }
    stats.compileSeconds += secondsSince(start);
    ++stats.programs;
    stats.tasks +=
        entry->compiled.loaded ? entry->session->program().num_tasks : 0;
    entry->module = std::move(module);
    plan->segment = std::move(entry);
  }

  plan->executedAfter = done;
  plan->executedAfter |= inS;
  plan->executedAfter |= folded;
  plan->executedAfter |= hostNow;
  Plan *p = plan.get();
  plans[key] = std::move(plan);
  return p;
}

//===----------------------------------------------------------------------===//
// Public interface
//===----------------------------------------------------------------------===//

SegmentedModel::SegmentedModel(ModuleOp model, const RunOptions &options)
    : impl(std::make_unique<Impl>(model, options, counts)) {}

SegmentedModel::~SegmentedModel() = default;

llvm::Expected<std::vector<RValue>>
SegmentedModel::run(llvm::ArrayRef<RValue> inputs) {
  if (!impl->main)
    return error("the module has no function @main_graph");
  Block &body = impl->main.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return error(llvm::formatv("the model has {0} inputs, got {1}",
                               body.getNumArguments(), inputs.size())
                     .str());
  counts.segmentRuns = counts.hostRuns = 0;
  counts.segmentSeconds = counts.hostSeconds = 0;
  Env env;
  for (auto [a, v] : llvm::zip(body.getArguments(), inputs))
    env.values[a] = v;
  return impl->runGraph(impl->graphOf(body), env);
}

llvm::Expected<std::string> amk::findSegmentCut(ModuleOp module,
                                                func::FuncOp func,
                                                llvm::ArrayRef<RValue> inputs) {
  OwningOpRef<ModuleOp> copy = module.clone();
  // Shape inference errors belong to the compile that follows, not here.
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  if (llvm::Error e = bindInputShapes(*copy, func, inputs)) {
    llvm::consumeError(std::move(e));
    return std::string();
  }
  PassManager pm(module.getContext());
  pm.addPass(createInferShapes());
  if (failed(pm.run(*copy)))
    return std::string();
  func::FuncOp f = copy->lookupSymbol<func::FuncOp>("main_graph");
  if (!f)
    for (auto g : copy->getOps<func::FuncOp>())
      f = g;
  if (!f)
    return std::string();
  for (Operation &op : f.getBody().front().without_terminator())
    if (!isa<onnx::ConstantOp, onnx::NoValueOp>(op) && !isSegmentable(&op))
      return onnx::describeOp(&op);
  return std::string();
}
