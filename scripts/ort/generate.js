// Greedy generation with a decoder in ONNX Runtime, the reference for
// `amk-run --generate`: a prefill of the prompt with an empty past, then one
// step per token with the growing past_key_values (the interface Hugging
// Face Optimum exports), as a user of ORT would run it.
// Usage: node generate.js request.json
// request: {model, outDir, threads, prompt: [ids], steps,
//           feed: [ids] (optional: the tokens to feed after the prompt,
//           so that every step's logits are comparable with another
//           engine's; default: ORT's own argmax),
//           pasts: [{name, present, heads, headDim}], logits: name,
//           runs (whole generations; the last one's logits are written)}
// Writes <outDir>/result.json: {tokens: [argmax per generated token],
// logitsFile (float32, steps x vocab), vocab, runs: [{prefill_s,
// step_s: [...]}]} or {error}.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadOrt } = require('./common');

function int64Tensor(ort, values, dims) {
  return new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
}

function argmax(data, offset, n) {
  let best = 0;
  for (let i = 1; i < n; ++i)
    if (data[offset + i] > data[offset + best]) best = i;
  return best;
}

async function main() {
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const result = { runs: [] };
  try {
    const ort = loadOrt();
    const session = await ort.InferenceSession.create(req.model, {
      intraOpNumThreads: req.threads || 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    const inputs = new Set(session.inputNames);
    const P = req.prompt.length;
    let logits = null;
    for (let run = 0; run < (req.runs || 1); ++run) {
      const timing = { step_s: [] };
      const tokens = [];
      logits = [];
      let past = {};
      for (const p of req.pasts)
        past[p.name] = new ort.Tensor('float32', new Float32Array(0), [1, p.heads, 0, p.headDim]);
      let fed = req.prompt.slice();
      let pos = 0;
      for (let step = 0; step < req.steps; ++step) {
        const S = fed.length;
        const feeds = { input_ids: int64Tensor(ort, fed, [1, S]) };
        if (inputs.has('attention_mask'))
          feeds.attention_mask = int64Tensor(ort, new Array(pos + S).fill(1), [1, pos + S]);
        if (inputs.has('position_ids'))
          feeds.position_ids = int64Tensor(ort, fed.map((_, i) => pos + i), [1, S]);
        Object.assign(feeds, past);
        const t0 = process.hrtime.bigint();
        const outs = await session.run(feeds);
        const secs = Number(process.hrtime.bigint() - t0) / 1e9;
        if (step === 0) timing.prefill_s = secs; else timing.step_s.push(secs);
        const l = outs[req.logits];
        const V = l.dims[l.dims.length - 1];
        result.vocab = V;
        const row = l.data.subarray((S - 1) * V, S * V);
        logits.push(Float32Array.from(row));
        const tok = argmax(row, 0, V);
        tokens.push(tok);
        const next = req.feed && step < req.feed.length ? req.feed[step] : tok;
        past = {};
        for (const p of req.pasts) past[p.name] = outs[p.present];
        pos += S;
        fed = [next];
      }
      result.tokens = tokens;
      result.runs.push(timing);
    }
    const file = path.join(req.outDir, 'logits.bin');
    const all = new Float32Array(logits.length * result.vocab);
    logits.forEach((row, i) => all.set(row, i * result.vocab));
    fs.writeFileSync(file, Buffer.from(all.buffer));
    result.logitsFile = file;
  } catch (e) {
    result.error = String(e && e.message ? e.message : e).split('\n')[0];
  }
  fs.writeFileSync(path.join(req.outDir, 'result.json'), JSON.stringify(result));
}

main().catch((e) => { console.error(e); process.exit(2); });
