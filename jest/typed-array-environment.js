// A Node test environment that shares the typed-array classes with the host
// realm: onnxruntime-node checks `data instanceof Float32Array` against its
// own realm's classes, which Jest's sandbox would otherwise replace.
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Int16Array',
  'Int32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array'
];

class TypedArrayEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) {
      this.global[name] = globalThis[name];
    }
  }
}

module.exports = TypedArrayEnvironment;
