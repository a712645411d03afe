/**
 * The offline notice and the local model's one status line, rendered as
 * the sidebar renders them (react-dom/server).
 */
import React from 'react';
import { LocalModelStatusStore } from '../../agent/model/local/load-status';
import { LocalModelProgress } from '../setup/local-model-progress';
import { OfflineNotice } from '../setup/offline-notice';
import { SetupNotice } from '../setup/setup-notice';
import { marking, render } from './render';

const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');

const OFFLINE = {
  state: 'unreachable' as const,
  url: 'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json',
  host: 'huggingface.co',
  reason: 'Failed to fetch',
  model: 'onnx-community/Qwen3-0.6B-ONNX'
};

describe('the offline notice', () => {
  it('names the host, the request that failed, and offers the three ways out', () => {
    const html = render(
      React.createElement(OfflineNotice, {
        reach: OFFLINE,
        onOpenSettings: () => undefined
      })
    );
    expect(text(html)).toContain(
      'Can’t reach huggingface.co — offline or blocked?'
    );
    expect(text(html)).toContain(`${OFFLINE.url} failed (Failed to fetch)`);
    const buttons = [...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map(
      m => m[1]
    );
    expect(buttons).toEqual([
      'Use an endpoint',
      'Serve weights from the server',
      'Open settings'
    ]);
    // The exact variables the server reads, and the server's setting.
    expect(html).toContain('OPENAI_BASE_URL=');
    expect(html).toContain('OPENAI_API_KEY=');
    expect(html).toContain('c.NotebookAgent.local_models_dir = ');
    expect(text(html)).toContain('/srv/models/onnx-community/Qwen3-0.6B-ONNX/');
    // Closed until asked for: disclosure buttons say so.
    expect(html.match(/aria-expanded="false"/g)).toHaveLength(2);
    expect(html.match(/ hidden=""/g)).toHaveLength(2);
  });

  it('says a host that answered 404 has not got the files', () => {
    const html = render(
      React.createElement(OfflineNotice, {
        reach: { ...OFFLINE, state: 'missing', status: 404 },
        onOpenSettings: () => undefined
      })
    );
    expect(text(html)).toContain('huggingface.co has no files for this model');
    expect(text(html)).not.toContain('offline or blocked');
  });

  it('takes the place of the local-model notice in local mode, and only there', () => {
    const props = {
      status: { kind: 'not-configured' as const },
      reach: OFFLINE,
      onOpenSettings: () => undefined
    };
    const local = text(
      render(React.createElement(SetupNotice, { ...props, mode: 'local' }))
    );
    expect(local).toContain('Can’t reach huggingface.co');
    expect(local).not.toContain('runs a small model in this browser');
    const proxy = text(
      render(React.createElement(SetupNotice, { ...props, mode: 'proxy' }))
    );
    expect(proxy).toContain('No model endpoint is configured.');
    expect(proxy).not.toContain('Can’t reach');
    const reachable = text(
      render(
        React.createElement(SetupNotice, {
          ...props,
          mode: 'local',
          reach: { state: 'reachable', url: OFFLINE.url }
        })
      )
    );
    expect(reachable).toContain('runs a small model in this browser');
  });

  it('says everything through the translation bundle', () => {
    const html = render(
      React.createElement(OfflineNotice, {
        reach: OFFLINE,
        onOpenSettings: () => undefined
      }),
      marking
    );
    const strings = html
      .replace(/<pre>[\s\S]*?<\/pre>/g, '')
      .replace(/<code>[^<]*<\/code>/g, '')
      .replace(/<[^>]*>/g, '\n')
      .split('\n')
      .map(s => s.trim())
      .filter(s => s && s !== '«' && s !== '»');
    for (const s of strings) {
      expect(s).toMatch(/^«|»$/);
    }
  });
});

describe('the local model’s status', () => {
  it('is one line: the stage, then the latest fallback or warning', () => {
    const store = new LocalModelStatusStore();
    store.update({
      model: 'onnx-community/Qwen3-0.6B-ONNX',
      stage: 'download',
      warning: 'Running on the CPU with WebAssembly.',
      fallbacks: ['WebGPU (q4) failed (no adapter); trying WebAssembly (q8)']
    });
    const html = render(React.createElement(LocalModelProgress, { store }));
    expect(html.match(/jp-AgentSidebar-localModelLine/g)).toHaveLength(1);
    expect(text(html)).toContain('Downloading Qwen3-0.6B-ONNX…');
    expect(text(html)).toContain('trying WebAssembly (q8)');
    expect(text(html)).not.toContain('Running on the CPU');
  });

  it('shows nothing after a failure: the error banner says it, once', () => {
    const store = new LocalModelStatusStore();
    store.update({
      model: 'onnx-community/Qwen3-0.6B-ONNX',
      stage: 'error',
      error: 'Could not download config.json from huggingface.co',
      warning: 'Running on the CPU with WebAssembly.'
    });
    expect(render(React.createElement(LocalModelProgress, { store }))).toBe('');
  });
});
