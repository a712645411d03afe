// Extra build rules for the extension (package.json "jupyterlab.webpackConfig").
// onnxruntime's WebAssembly (used by the local-model worker) is emitted under
// its own name in static/, so the worker can point onnxruntime at the
// extension's own files instead of a CDN; it is fetched only on first use.
const path = require('path');
// The plugins must come from the rspack that jupyter-builder runs.
const rspack = require(
  require.resolve('@rspack/core', {
    paths: [path.dirname(require.resolve('@jupyter/builder/package.json'))]
  })
);

module.exports = {
  module: {
    rules: [
      {
        test: /\.wasm$/,
        type: 'asset/resource',
        generator: { filename: '[name][ext]' }
      },
      {
        test: /\.m?js$/,
        include:
          /node_modules[\\/](@huggingface[\\/]transformers|onnxruntime-web)[\\/]/,
        loader: path.join(__dirname, 'webpack.import-meta-url-loader.js')
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
  performance: { hints: false },
  // Reproducible builds: 'deterministic' ids hash module identifiers, and
  // the module federation container's identifier holds the absolute path of
  // the checkout, so two folders gave different ids (and chunk hashes).
  // Ids in module graph order depend on the sources only
  // (scripts/check-reproducible-build.sh).
  //
  // remoteEntry is left unminified (40 KB, 10 KB gzipped): it holds the
  // other chunks' content hashes, and the minifier picks its short variable
  // names by character frequency over a text in which those hashes are
  // still the first-pass ones (which hash module identifiers holding the
  // checkout's path). The final hashes replace them after minification, so
  // the same sources gave remoteEntry files that differ only in variable
  // names, depending on the folder. The other chunks hold no hashes.
  optimization: {
    moduleIds: 'natural',
    chunkIds: 'natural',
    minimizer: [
      new rspack.SwcJsMinimizerRspackPlugin({ exclude: /remoteEntry\./ }),
      new rspack.LightningCssMinimizerRspackPlugin()
    ]
  }
};
