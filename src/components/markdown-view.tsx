/**
 * Renders model-written markdown through JupyterLab's own renderer, as
 * untrusted content: the sanitizer strips scripts, event handlers and
 * `javascript:` links, and code blocks get JupyterLab's highlighting.
 *
 * The text is rendered block by block (markdown-blocks.ts): while a reply
 * streams, finished blocks stay as they are and only the last one is
 * rendered again.
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import React, { memo, useEffect, useRef } from 'react';
import { markdownBlocks } from './markdown-blocks';

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
  return (
    <div className="jp-AgentSidebar-markdown">
      {markdownBlocks(text).map((block, index) => (
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

  useEffect(() => {
    const created = rendermime.createRenderer('text/markdown');
    renderer.current = created;
    host.current?.appendChild(created.node);
    return () => {
      renderer.current = null;
      created.dispose();
    };
  }, [rendermime]);

  useEffect(() => {
    const current = renderer.current;
    if (!current) {
      return;
    }
    const model = new MimeModel({
      data: { 'text/markdown': text },
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
