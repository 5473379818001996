// ONNX Runtime's own per-node profile of a model (all graph optimizations,
// as the benchmark runs it), to compare AMK's `amk-run --trace` with, layer
// by layer. Inputs are uniform random float32 of the given shapes.
// Usage: node profile.js model.onnx THREADS RUNS name=1x3x224x224 ...
// Prints, in ms per run: the total per op type, then the slowest nodes (30,
// or AMK_PROFILE_NODES of them)
// (ORT names a fused node after its last output, e.g. ..._nchwc).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {loadOrt} = require('./common');

async function main() {
  const [model, threads, runs, ...shapes] = process.argv.slice(2);
  if (!model || !shapes.length) {
    console.error(
        'usage: node profile.js model.onnx THREADS RUNS name=d0xd1x... ...');
    process.exit(2);
  }
  const ort = loadOrt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'amk-ort-profile-'));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads : +threads,
    interOpNumThreads : 1,
    graphOptimizationLevel : 'all',
    logSeverityLevel : 3,
    enableProfiling : true,
    profileFilePrefix : path.join(dir, 'p'),
  });
  const feeds = {};
  for (const spec of shapes) {
    const [name, dims] = spec.split('=');
    const shape = dims.split('x').map(Number);
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; ++i)
      data[i] = Math.random();
    feeds[name] = new ort.Tensor('float32', data, shape);
  }
  for (let i = 0; i < +runs; ++i)
    await session.run(feeds);
  session.endProfiling();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const byNode = new Map(), byOp = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time'))
      continue;
    const node = e.name.slice(0, -'_kernel_time'.length);
    byNode.set(node, (byNode.get(node) || 0) + e.dur);
    const op = (e.args && e.args.op_name) || '?';
    byOp.set(op, (byOp.get(op) || 0) + e.dur);
  }
  const ms = (us) => (us / +runs / 1000).toFixed(3);
  let total = 0;
  for (const [op, us] of [...byOp].sort((a, b) => b[1] - a[1])) {
    console.log(`${ms(us)} ms  ${op}`);
    total += us;
  }
  console.log(`${ms(total)} ms  total of the nodes' kernel times`);
  for (const [node, us] of [...byNode]
           .sort((a, b) => b[1] - a[1])
           .slice(0, +(process.env.AMK_PROFILE_NODES || 30)))
    console.log(`${ms(us)} ms  ${node}`);
  fs.rmSync(dir, {recursive : true, force : true});
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
