/**
 * Renders model-written markdown through JupyterLab's own renderer, as
 * untrusted content: the sanitizer strips scripts, event handlers and
 * `javascript:` links, and code blocks get JupyterLab's highlighting.
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import React, { useEffect, useRef } from 'react';

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
    // Streaming re-renders often; only the newest text matters.
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

  return <div className="jp-AgentSidebar-markdown" ref={host} />;
}
