// Runs one model in ONNX Runtime on given inputs and writes its outputs.
// Usage: node run.js request.json
// request: {model, inputs: [{name, dtype, dims, file|strings}], outDir,
//           threads, optimization ("all" | "disabled"), iterations}
// Writes <outDir>/result.json: {outputs: [{name, dtype, dims, file|strings}],
// seconds: [per-iteration run times]} or {error}.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadOrt, makeTensor, TYPES } = require('./common');

const ORT_TO_ONNX = {};
for (const [onnx, [ortType]] of Object.entries(TYPES)) ORT_TO_ONNX[ortType] = onnx;

async function main() {
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const result = {};
  try {
    const ort = loadOrt();
    const session = await ort.InferenceSession.create(req.model, {
      intraOpNumThreads: req.threads || 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: req.optimization || 'all',
      logSeverityLevel: 3,
    });
    const feeds = {};
    for (const input of req.inputs) feeds[input.name] = makeTensor(ort, input);
    let outs;
    result.seconds = [];
    for (let i = 0; i < (req.iterations || 1); ++i) {
      const t0 = process.hrtime.bigint();
      outs = await session.run(feeds);
      result.seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    result.outputs = [];
    for (const name of session.outputNames) {
      const t = outs[name];
      const o = { name, dims: Array.from(t.dims) };
      if (t.type === 'string') {
        o.dtype = 'string';
        o.strings = Array.from(t.data);
      } else {
        o.dtype = ORT_TO_ONNX[t.type] || t.type;
        o.file = path.join(req.outDir, `output_${result.outputs.length}.bin`);
        const d = t.data;
        fs.writeFileSync(o.file, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
      }
      result.outputs.push(o);
    }
  } catch (e) {
    result.error = String(e && e.message ? e.message : e).split('\n')[0];
  }
  fs.writeFileSync(path.join(req.outDir, 'result.json'), JSON.stringify(result));
}

main().catch((e) => { console.error(e); process.exit(2); });
