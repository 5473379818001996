// Runs each model of an amk-roundtrip manifest twice in ONNX Runtime, as
// the original and as AMK re-exported it, on the same inputs, and requires
// bit-identical outputs. Usage: node roundtrip.js manifest.json [report.json]
'use strict';
const fs = require('fs');
const { loadOrt, makeTensor, tensorBytes } = require('./common');

async function runModel(ort, file, feeds) {
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 4,
  });
  return session.run(feeds);
}

function describeError(e) {
  return String(e && e.message ? e.message : e).split('\n')[0].slice(0, 200);
}

async function main() {
  const ort = loadOrt();
  const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const counts = { identical: 0, differ: 0, both_rejected: 0, one_rejected: 0, skipped: 0 };
  const report = [];
  for (const entry of manifest) {
    const rec = { id: entry.id };
    report.push(rec);
    if (entry.skip) { rec.verdict = 'skipped'; rec.reason = entry.skip; counts.skipped++; continue; }
    let feeds;
    try {
      feeds = {};
      for (const input of entry.inputs) feeds[input.name] = makeTensor(ort, input);
    } catch (e) {
      rec.verdict = 'skipped'; rec.reason = describeError(e); counts.skipped++; continue;
    }
    let a, b, ea, eb;
    try { a = await runModel(ort, entry.original, feeds); } catch (e) { ea = describeError(e); }
    try { b = await runModel(ort, entry.exported, feeds); } catch (e) { eb = describeError(e); }
    if (ea && eb) { rec.verdict = 'both_rejected'; rec.reason = ea; counts.both_rejected++; continue; }
    if (ea || eb) {
      rec.verdict = 'one_rejected';
      rec.reason = ea ? `original: ${ea}` : `exported: ${eb}`;
      counts.one_rejected++;
      console.log(`FAIL ${entry.id}: ${rec.reason}`);
      continue;
    }
    const diffs = [];
    const names = Object.keys(a);
    if (names.join() !== Object.keys(b).join()) diffs.push(`output names ${names} vs ${Object.keys(b)}`);
    for (const n of names) {
      if (!b[n]) continue;
      if (a[n].type !== b[n].type || a[n].dims.join() !== b[n].dims.join()) {
        diffs.push(`${n}: ${a[n].type}[${a[n].dims}] vs ${b[n].type}[${b[n].dims}]`);
      } else if (!tensorBytes(a[n]).equals(tensorBytes(b[n]))) {
        diffs.push(`${n}: values differ`);
      }
    }
    if (diffs.length) {
      rec.verdict = 'differ'; rec.reason = diffs.join('; '); counts.differ++;
      console.log(`FAIL ${entry.id}: ${rec.reason}`);
    } else {
      rec.verdict = 'identical'; counts.identical++;
    }
  }
  if (process.argv[3]) fs.writeFileSync(process.argv[3], JSON.stringify(report, null, 1));
  console.log(`ort-roundtrip: ${counts.identical} identical, ${counts.differ} differ, ` +
              `${counts.one_rejected} rejected only on one side, ` +
              `${counts.both_rejected} rejected by ORT on both sides, ${counts.skipped} skipped`);
  process.exit(counts.differ || counts.one_rejected ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
