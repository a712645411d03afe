/**
 * JupyterLab loads its markdown pipeline on first use (the parser, MathJax,
 * code highlighting: a dozen chunks, about 100 ms of script evaluation).
 * Without a warm-up that cost lands in the middle of the first streamed
 * reply, as long tasks while the text arrives (bench/ui-streaming.ts). So
 * when the user starts typing the first prompt, one small sample is
 * rendered off-screen in an idle moment, once per registry.
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { untrustedRendermime } from './markdown-view';

/** Inline code, math and a fenced code block: each loads its own part. */
const SAMPLE = 'Ready: `x`, $x^2$.\n\n```python\nx = 1\n```\n';

const warmed = new WeakSet<IRenderMimeRegistry>();

/** Render a sample once, when the page is idle; errors are ignored (the real render reports its own). */
export function warmUpMarkdown(rendermime: IRenderMimeRegistry): void {
  if (warmed.has(rendermime)) {
    return;
  }
  warmed.add(rendermime);
  const render = () => {
    const renderer =
      untrustedRendermime(rendermime).createRenderer('text/markdown');
    void renderer
      .renderModel(
        new MimeModel({ data: { 'text/markdown': SAMPLE }, trusted: false })
      )
      .catch(() => undefined)
      .finally(() => renderer.dispose());
    // A renderer off the page does not typeset: MathJax (most of those
    // chunks) loads on the typesetter's first call.
    const math = document.createElement('div');
    math.textContent = '$x^2$';
    void Promise.resolve(rendermime.latexTypesetter?.typeset(math)).catch(
      () => undefined
    );
  };
  if (typeof window.requestIdleCallback === 'function') {
    // Soon: a prompt takes a second or two to type.
    window.requestIdleCallback(render, { timeout: 300 });
  } else {
    window.setTimeout(render, 0);
  }
}
