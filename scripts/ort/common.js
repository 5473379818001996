// Shared helpers for driving ONNX Runtime (onnxruntime-node) from AMK's
// test and benchmark scripts. ORT is installed by scripts/setup.sh into
// third_party/node_modules (npm, --ignore-scripts: its install step would
// try to download GPU libraries).
'use strict';
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const root = path.resolve(__dirname, '..', '..', 'third_party', 'node_modules');
  try {
    return require(path.join(root, 'onnxruntime-node'));
  } catch (e) {
    console.error(`cannot load onnxruntime-node from ${root}: run scripts/setup.sh`);
    process.exit(2);
  }
}

// ONNX data type names (as AMK writes them) -> [ORT tensor type, typed array].
const TYPES = {
  float: ['float32', Float32Array],
  double: ['float64', Float64Array],
  float16: ['float16', Uint16Array],
  int8: ['int8', Int8Array],
  uint8: ['uint8', Uint8Array],
  int16: ['int16', Int16Array],
  uint16: ['uint16', Uint16Array],
  int32: ['int32', Int32Array],
  uint32: ['uint32', Uint32Array],
  int64: ['int64', BigInt64Array],
  uint64: ['uint64', BigUint64Array],
  bool: ['bool', Uint8Array],
};

// Builds an ORT tensor from a manifest input: {name, dtype, dims, file|strings}.
function makeTensor(ort, input) {
  if (input.strings) return new ort.Tensor('string', input.strings, input.dims);
  const t = TYPES[input.dtype];
  if (!t) throw new Error(`input '${input.name}' has type ${input.dtype}, which the ORT Node binding cannot feed`);
  const bytes = fs.readFileSync(input.file);
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new ort.Tensor(t[0], new t[1](buf), input.dims);
}

// Raw bytes of an output tensor, for exact comparison.
function tensorBytes(t) {
  if (t.type === 'string') return Buffer.from(JSON.stringify(t.data));
  const d = t.data;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

module.exports = { loadOrt, makeTensor, tensorBytes, TYPES };
