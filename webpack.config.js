// Extra build rules for the extension (package.json "jupyterlab.webpackConfig").
// onnxruntime's WebAssembly (used by the local-model worker) is emitted under
// its own name in static/, so the worker can point onnxruntime at the
// extension's own files instead of a CDN; it is fetched only on first use.
module.exports = {
  module: {
    rules: [
      {
        test: /\.wasm$/,
        type: 'asset/resource',
        generator: { filename: '[name][ext]' }
      }
    ]
  },
  // transformers.js and onnxruntime-web are prebuilt bundles with dynamic
  // imports the bundler cannot follow (and a 27 MB wasm): their warnings are
  // expected, and printing their minified source buries real ones.
  ignoreWarnings: [
    {
      module: /node_modules[\\/](@huggingface[\\/]transformers|onnxruntime-web)/
    },
    {
      message:
        /asset size limit|entrypoint size limit|license file for onnxruntime-web/
    }
  ],
  performance: { hints: false }
};
