/**
 * Renders model-written markdown through JupyterLab's own renderer, as
 * untrusted content: the sanitizer strips scripts, event handlers and
 * `javascript:` links, and code blocks get JupyterLab's highlighting. The
 * sidebar's sanitizer is stricter than the notebook's (untrusted-html.ts):
 * nothing remote loads, and no command link or form survives.
 *
 * The text is rendered block by block (markdown-blocks.ts): while a reply
 * streams, finished blocks stay as they are (not even split again) and only
 * the last one is rendered again. A printed table pasted into the text (a
 * DataFrame as a cell printed it) is shown as code, in its columns
 * (printed-tables.ts).
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import React, { memo, useEffect, useLayoutEffect, useRef } from 'react';
import { BlockSplitter } from './markdown-blocks';
import { fencePrintedTables } from './printed-tables';
import { UntrustedHtmlSanitizer } from './untrusted-html';

/** One clone per registry, with the sidebar's sanitizer. */
const CLONES = new WeakMap<IRenderMimeRegistry, IRenderMimeRegistry>();

/** `rendermime` with the strict sanitizer for model output. */
export function untrustedRendermime(
  rendermime: IRenderMimeRegistry
): IRenderMimeRegistry {
  let clone = CLONES.get(rendermime);
  if (!clone) {
    clone = rendermime.clone({
      sanitizer: new UntrustedHtmlSanitizer(rendermime.sanitizer)
    });
    CLONES.set(rendermime, clone);
  }
  return clone;
}

/** Props of `MarkdownView`. */
export interface IMarkdownViewProps {
  text: string;
  rendermime: IRenderMimeRegistry;
}

/** Sanitized markdown. */
export function MarkdownView({
  text,
  rendermime
}: IMarkdownViewProps): JSX.Element {
  const splitter = useRef<BlockSplitter | null>(null);
  splitter.current ??= new BlockSplitter();
  return (
    <div className="jp-AgentSidebar-markdown">
      {splitter.current.split(text).map((block, index) => (
        <MarkdownBlock key={index} text={block} rendermime={rendermime} />
      ))}
    </div>
  );
}

/** One block; re-renders only when its own text changes. */
const MarkdownBlock = memo(MarkdownBlockView);

function MarkdownBlockView({
  text,
  rendermime
}: IMarkdownViewProps): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const renderer = useRef<IRenderMime.IRenderer | null>(null);
  const latest = useRef(text);
  latest.current = text;

  // A layout effect: its cleanup runs while the host is still in the
  // document, which Lumino needs to detach the renderer.
  useLayoutEffect(() => {
    const created =
      untrustedRendermime(rendermime).createRenderer('text/markdown');
    renderer.current = created;
    const node = host.current;
    if (node?.isConnected) {
      // Attached as a Lumino widget, so the renderer typesets LaTeX (with
      // MathJax's safe mode) as it does in a notebook.
      Widget.attach(created, node);
    } else {
      node?.appendChild(created.node);
    }
    return () => {
      renderer.current = null;
      try {
        created.dispose();
      } catch {
        // The host left the document first: Lumino cannot detach it.
        created.node.remove();
      }
    };
  }, [rendermime]);

  useEffect(() => {
    const current = renderer.current;
    if (!current) {
      return;
    }
    const model = new MimeModel({
      data: { 'text/markdown': fencePrintedTables(text) },
      trusted: false
    });
    void current.renderModel(model).catch(() => {
      if (latest.current === text && host.current) {
        host.current.textContent = text;
      }
    });
  }, [text, rendermime]);

  return <div className="jp-AgentSidebar-markdownBlock" ref={host} />;
}
