// A loader for the prebuilt ES modules that run in the local-model worker
// (transformers.js, onnxruntime-web). The bundler replaces a bare
// `import.meta.url` with the file's absolute `file://` path on the build
// machine, which is wrong in the browser and makes builds depend on where
// they ran. In the worker, every chunk is served from the extension's
// static folder, so the worker's own URL stands in for the module's.
// `new URL("…", import.meta.url)` is left alone: the bundler turns it into
// an emitted asset (the onnxruntime WebAssembly) and its real URL.
const BARE_IMPORT_META_URL = /(?<!new URL\("[^"]*",\s*)import\.meta\.url/g;

module.exports = function importMetaUrlLoader(source) {
  return source.replace(BARE_IMPORT_META_URL, 'self.location.href');
};
