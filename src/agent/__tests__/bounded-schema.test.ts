/**
 * An MCP server's argument schema checked in bounded time
 * (tools/bounded-schema.ts): a hostile `pattern`, `uniqueItems` over many
 * items and exponential references no longer freeze the tab, the model
 * still reads the schema as the server sent it, and ordinary mistakes are
 * still caught before the call leaves.
 */
import { FakeNotebook } from '../testing/fake-notebook';
import {
  boundedSchema,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES
} from '../tools/bounded-schema';
import { mcpTool } from '../tools/mcp-tools';
import type { IMcpClient, IMcpServerInfo } from '../tools/mcp-types';
import { ToolRegistry } from '../tools/registry';

const SERVER: IMcpServerInfo = {
  name: 'hostile',
  transport: 'http',
  source: 'config',
  status: 'connected',
  error: null,
  restarts: 0,
  timeout: 30,
  tools: [],
  skipped_tools: []
};

/** A registry holding one MCP tool of `schema`, and the calls that reached the server. */
function registryOf(schema: Record<string, unknown>) {
  const calls: Array<Record<string, unknown>> = [];
  const client: IMcpClient = {
    listServers: async () => ({
      servers: [],
      errors: [],
      user_servers_allowed: false
    }),
    call: async (name, args) => {
      calls.push(args);
      return {
        ok: true,
        result: {
          name,
          is_error: false,
          content: [{ type: 'text', text: 'ok' }]
        }
      };
    }
  };
  const tool = mcpTool(
    SERVER,
    {
      name: 'hostile__t',
      tool: 't',
      description: 'a tool',
      input_schema: schema,
      auto_approve: true
    },
    client
  );
  return { registry: new ToolRegistry([tool]), calls };
}

/** Check `args` against `schema` as the loop does; its outcome and the time it took. */
async function check(schema: Record<string, unknown>, args: unknown) {
  const { registry } = registryOf(schema);
  const started = Date.now();
  const checked = await registry.check({
    id: 'c',
    name: 'hostile__t',
    arguments: JSON.stringify(args)
  });
  return {
    ok: !('refused' in checked),
    output: 'refused' in checked ? checked.refused.output : '',
    ms: Date.now() - started
  };
}

/** A list nested `depth` deep around `inner`. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) {
    value = [value];
  }
  return value;
}

describe('MCP argument schemas checked in bounded time', () => {
  it('a catastrophic pattern returns at once (the server checks patterns)', async () => {
    const schema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } },
      required: ['s']
    };
    const result = await check(schema, { s: `${'a'.repeat(30)}!` });
    expect(result.ms).toBeLessThan(1000);
    expect(result.ok).toBe(true);
  });

  it('the same in patternProperties, propertyNames, $defs and every other place', async () => {
    const evil = { type: 'string', pattern: '^(a+)+$' };
    const schema = {
      type: 'object',
      $defs: { e: evil },
      definitions: { e: evil },
      patternProperties: { '^(a+)+$': evil },
      propertyNames: { pattern: '^(a+)+$' },
      additionalProperties: false,
      properties: {
        a: { $ref: '#/$defs/e' },
        b: { items: evil },
        c: { anyOf: [evil, { type: 'number' }] },
        d: { oneOf: [evil] },
        e: { allOf: [evil] },
        f: { not: { ...evil, pattern: '^(b+)+$' } },
        g: { if: evil, then: evil, else: evil },
        h: { type: 'object', additionalProperties: evil },
        i: { $ref: '#/definitions/e' }
      }
    };
    const bounded = JSON.stringify(boundedSchema(schema));
    expect(bounded).not.toContain('pattern');
    const word = `${'a'.repeat(30)}!`;
    const args = {
      [word]: word,
      a: word,
      b: [word],
      c: word,
      d: word,
      e: word,
      f: word,
      g: word,
      h: { x: word },
      i: word
    };
    const result = await check(schema, args);
    expect(result.ms).toBeLessThan(1000);
    expect(result.ok).toBe(true);
  });

  it('keeps what does not depend on patterns: a property named "pattern", types, required', async () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^x' },
        count: { type: 'integer', minimum: 1 }
      },
      required: ['pattern'],
      additionalProperties: false
    };
    expect(boundedSchema(schema)).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        count: { type: 'integer', minimum: 1 }
      },
      required: ['pattern'],
      additionalProperties: false
    });
    expect((await check(schema, { pattern: 'y' })).ok).toBe(true);
    const wrong = await check(schema, { count: 'two', extra: 1 });
    expect(wrong.ok).toBe(false);
    expect(wrong.output).toMatch(/must have required property 'pattern'/);
    expect(wrong.output).toMatch(/must be integer/);
    expect(wrong.output).toMatch(/must NOT have additional properties/);
  });

  it('leaves data alone: enum, const and default keep their "pattern" keys', () => {
    const schema = {
      type: 'object',
      properties: {
        mode: { enum: [{ pattern: 'x' }, null] },
        fixed: { const: { pattern: 'y' }, default: { pattern: 'z' } }
      }
    };
    expect(boundedSchema(schema)).toEqual(schema);
    expect(boundedSchema(schema)).not.toBe(schema);
  });

  it('drops additionalProperties beside patternProperties, which it depended on', async () => {
    const schema = {
      type: 'object',
      patternProperties: { '^x_': { type: 'number' } },
      additionalProperties: false
    };
    expect(boundedSchema(schema)).toEqual({ type: 'object' });
    expect((await check(schema, { x_a: 1 })).ok).toBe(true);
  });

  it('never refuses what the full schema accepts: not, if, oneOf and maxContains widen', async () => {
    const { default: Ajv } = await import('ajv');
    const schema = {
      type: 'object',
      $defs: { digits: { type: 'string', pattern: '^[0-9]+$' } },
      properties: {
        notDigits: { not: { $ref: '#/$defs/digits' } },
        notNot: { not: { not: { type: 'string', pattern: '^x' } } },
        choice: {
          oneOf: [
            { type: 'string', pattern: '^a' },
            { type: 'string', pattern: '^b' }
          ]
        },
        cond: {
          if: { type: 'string', pattern: '^n' },
          then: { maxLength: 3 },
          else: { minLength: 2 }
        },
        list: {
          type: 'array',
          contains: { type: 'string', pattern: '^k' },
          maxContains: 1
        }
      }
    };
    const full = new Ajv({ strict: false }).compile(schema);
    const bounded = new Ajv({ strict: false }).compile(boundedSchema(schema));
    const samples = [
      { notDigits: 'abc' },
      { notNot: 'xyz' },
      { choice: 'apple' },
      { choice: 'banana' },
      { cond: 'nop' },
      { cond: 'n' },
      { cond: 'abcd' },
      { list: ['k1', 'z', 'q'] }
    ];
    for (const sample of samples) {
      expect(full(sample)).toBe(true);
      expect(bounded(sample)).toBe(true);
    }
    // What does not depend on a pattern is still checked.
    expect(bounded({ choice: 3 })).toBe(false);
  });

  it('uniqueItems over 20,000 objects does not compare every pair', async () => {
    const schema = {
      type: 'object',
      properties: { rows: { type: 'array', uniqueItems: true } }
    };
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ a: i }));
    const result = await check(schema, { rows });
    expect(result.ms).toBeLessThan(2000);
    expect(result.ok).toBe(true);
  });

  it('a recursive anyOf with deep arguments is not exponential', async () => {
    const node = {
      anyOf: [
        { type: 'array', items: { $ref: '#/$defs/node' } },
        { type: 'array', items: { $ref: '#/$defs/node' } },
        { type: 'string' }
      ]
    };
    const schema = {
      type: 'object',
      $defs: { node },
      properties: { tree: { $ref: '#/$defs/node' } }
    };
    const result = await check(schema, { tree: nested(40, 1) });
    expect(result.ms).toBeLessThan(1000);
  });

  it('a chain of definitions that each refer twice to the next is not exponential', async () => {
    const defs: Record<string, unknown> = { a40: { type: 'string' } };
    for (let i = 0; i < 40; i++) {
      defs[`a${i}`] = {
        anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }]
      };
    }
    const schema = {
      type: 'object',
      $defs: defs,
      properties: { v: { $ref: '#/$defs/a0' } }
    };
    const result = await check(schema, { v: 1 });
    expect(result.ms).toBeLessThan(1000);
  });

  it('keeps small, acyclic references (they still catch mistakes)', async () => {
    const schema = {
      type: 'object',
      $defs: { point: { type: 'object', required: ['x'] } },
      properties: { p: { $ref: '#/$defs/point' } }
    };
    expect(boundedSchema(schema)).toEqual(schema);
    expect((await check(schema, { p: {} })).ok).toBe(false);
    expect((await check(schema, { p: { x: 1 } })).ok).toBe(true);
  });

  it('a schema too large or too deep is checked for its shape only', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: MAX_SCHEMA_NODES + 1 }, (_, i) => [
          `p${i}`,
          { type: 'string' }
        ])
      )
    };
    expect(boundedSchema(wide)).toEqual({ type: 'object' });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 5; i++) {
      deep = { type: 'object', properties: { x: deep } };
    }
    expect(boundedSchema(deep)).toEqual({ type: 'object' });
  });

  it('a draft 2020-12 schema compiles (ajv refused its $schema before)', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'number' } }
    };
    expect((await check(schema, { n: 1 })).ok).toBe(true);
    expect((await check(schema, { n: 'x' })).ok).toBe(false);
  });

  it('the model reads the schema as the server sent it', () => {
    const schema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^[a-z]+$' } }
    };
    const { registry } = registryOf(schema);
    expect(registry.specs[0].parameters).toBe(schema);
  });

  it('a checked call reaches the server with its arguments', async () => {
    const schema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } }
    };
    const { registry, calls } = registryOf(schema);
    const word = `${'a'.repeat(30)}!`;
    const result = await registry.call(
      { id: 'c', name: 'hostile__t', arguments: JSON.stringify({ s: word }) },
      {
        notebook: new FakeNotebook(),
        signal: new AbortController().signal
      }
    );
    expect(result.ok).toBe(true);
    expect(calls).toEqual([{ s: word }]);
  });
});
