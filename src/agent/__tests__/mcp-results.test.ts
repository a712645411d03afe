/** MCP tool results as observations: the same budgets as cell outputs. */
import { mcpObservation } from '../context/mcp-results';
import { OUTPUT_BUDGET } from '../context/observations';

const PNG_4x3 =
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg==';

describe('mcpObservation', () => {
  it('keeps long text within the output budget, head and tail', () => {
    const text = 'a'.repeat(50_000) + 'THE END';
    const result = mcpObservation('s__t', {
      ok: true,
      result: {
        name: 's__t',
        is_error: false,
        content: [{ type: 'text', text, truncated: 10 }]
      }
    });
    expect(result.ok).toBe(true);
    expect(result.output.length).toBeLessThanOrEqual(OUTPUT_BUDGET + 200);
    expect(result.output).toMatch(/elided/);
    expect(result.output).toContain('THE END');
    expect(result.output).toContain(
      '10 more characters not sent by the server'
    );
  });

  it('describes images in text and attaches them for vision models', () => {
    const result = mcpObservation('s__plot', {
      ok: true,
      result: {
        name: 's__plot',
        is_error: false,
        content: [
          { type: 'image', mime_type: 'image/png', data: PNG_4x3 },
          { type: 'image', mime_type: 'image/tiff', bytes: 5_000_000 }
        ]
      }
    });
    expect(result.output).toContain('[image/png 4×3 px');
    expect(result.output).toContain(
      '[image image/tiff, ~4.8 MB, not passed on]'
    );
    expect(result.images).toEqual([
      { mime: 'image/png', base64: PNG_4x3, width: 4, height: 3 }
    ]);
  });

  it('names resources, links and binary parts without pasting them', () => {
    const result = mcpObservation('s__r', {
      ok: true,
      result: {
        name: 's__r',
        is_error: false,
        content: [
          {
            type: 'resource',
            uri: 'file:///n.txt',
            mime_type: 'text/plain',
            text: 'hello'
          },
          {
            type: 'resource',
            uri: 'file:///b.bin',
            mime_type: 'application/zip',
            bytes: 2048
          },
          { type: 'resource_link', uri: 'https://x/doc', name: 'doc' },
          { type: 'unknown' }
        ]
      }
    });
    expect(result.output).toContain('[resource file:///n.txt]\nhello');
    expect(result.output).toContain(
      '[resource file:///b.bin (application/zip), ~2 KB, not passed on]'
    );
    expect(result.output).toContain('[link to resource doc: https://x/doc]');
    expect(result.output).toContain(
      'a part of a kind this client does not read'
    );
  });

  it('reports tool errors and server failures with what to do', () => {
    const failed = mcpObservation('s__t', {
      ok: true,
      result: {
        name: 's__t',
        is_error: true,
        content: [{ type: 'text', text: 'no such station' }]
      }
    });
    expect(failed).toMatchObject({
      ok: false,
      output: 'Error from s__t: no such station'
    });
    const timeout = mcpObservation('s__t', {
      ok: false,
      type: 'mcp_timeout',
      message: 't did not answer within 30 s; the call was cancelled'
    });
    expect(timeout.ok).toBe(false);
    expect(timeout.output).toContain('did not answer within 30 s');
    expect(timeout.output).toContain(
      'Do not call it again with the same arguments'
    );
  });
});
