/**
 * A copy of an outside JSON schema (an MCP server's tool arguments) that
 * ajv can check in bounded time, in the browser tab or the command line.
 *
 * The schema comes from the MCP server, which may be remote or hostile;
 * the arguments come from the model, which that server can steer. Checked
 * as given, ajv can freeze the page for minutes:
 *
 * - `pattern` and `patternProperties` become JavaScript's backtracking
 *   RegExp: `"^(a+)+$"` against thirty `a`s and a `!` never ends;
 * - `uniqueItems` compares every pair of items: 20,000 objects took 25 s;
 * - `$ref`s multiply work: a recursive `anyOf` is exponential in the
 *   arguments' depth, and a chain of definitions each referring twice to
 *   the next is exponential in the schema alone, with no recursion.
 *
 * The Jupyter server validates every call against the full schema itself,
 * in a bounded worker, before the MCP server sees it; the copy here only
 * tells the model early what is wrong. So it may be looser, never slower:
 * those keywords go (with what depends on them: `additionalProperties`
 * beside a `patternProperties`, the `unevaluated*` keywords), and when the
 * schema unfolded through its references is large or infinite, the
 * references go too. Left: work linear in the schema's size times the
 * arguments'. The model still reads the server's schema as it is.
 */

import {
  isObject,
  refsResolve,
  resolve,
  treeSize,
  unfoldedSize,
  LIST,
  MAP,
  ONE,
  REFS,
  type Json,
  type Schema
} from './schema-walk';

/** Subschemas the copy may hold, unfolded through `$ref`s. */
export const MAX_SCHEMA_NODES = 2000;

/** Nesting the copy may have (deeper: no local check at all). */
export const MAX_SCHEMA_DEPTH = 48;

/** What a schema that cannot be bounded is checked with: only its shape. */
const SHAPE_ONLY: Record<string, Json> = { type: 'object' };

/**
 * Keywords left out: regular expressions, quadratic checks, and what ajv
 * here cannot use anyway (`format` without its formats logs a warning;
 * `$schema` naming draft 2020-12 makes ajv's default build refuse the schema).
 */
const DROPPED = new Set([
  'pattern',
  'patternProperties',
  'uniqueItems',
  'format',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$schema'
]);

/**
 * The bounded copy of `schema` (see the module comment): never the same
 * object, never holding a regular expression.
 */
export function boundedSchema(
  schema: Record<string, unknown>
): Record<string, unknown> {
  let copy = strip(
    schema,
    unfoldedSize(schema, MAX_SCHEMA_NODES, MAX_SCHEMA_DEPTH) <= MAX_SCHEMA_NODES
  );
  if (copy !== null && !refsResolve(copy)) {
    // A reference into a part the copy left out (`#/patternProperties/…`).
    copy = strip(schema, false);
  }
  if (
    copy === null ||
    typeof copy === 'boolean' ||
    treeSize(copy, MAX_SCHEMA_NODES) > MAX_SCHEMA_NODES
  ) {
    return { ...SHAPE_ONLY };
  }
  return copy;
}

/** A subschema's copy, and whether it accepts more than the original. */
interface ICopy {
  schema: Schema;
  loosened: boolean;
}

/**
 * `root` without the dropped keywords (and without references unless
 * `keepRefs`: then every one resolves and none loops); null when it nests
 * deeper than MAX_SCHEMA_DEPTH. Every part accepts at least what it did:
 * where loosening would tighten (under `not`, in an `if`, between
 * `oneOf`'s branches, for `maxContains`), the keyword goes or is widened.
 */
function strip(root: Record<string, Json>, keepRefs: boolean): Schema | null {
  let tooDeep = false;
  const memo = new Map<object, ICopy>();
  const copy = (node: Json, depth: number): ICopy => {
    if (typeof node === 'boolean') {
      return { schema: node, loosened: false };
    }
    if (!isObject(node)) {
      // Not a schema: ajv would refuse it; here it checks nothing.
      return { schema: {}, loosened: true };
    }
    const known = memo.get(node);
    if (known) {
      return known;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      tooDeep = true;
      return { schema: {}, loosened: true };
    }
    const result = copyObject(node, depth);
    memo.set(node, result);
    return result;
  };
  const copyObject = (node: Record<string, Json>, depth: number): ICopy => {
    let loosened = false;
    const sub = (value: Json): ICopy => copy(value, depth + 1);
    const kept = (value: Json): Schema => {
      const inner = sub(value);
      loosened ||= inner.loosened;
      return inner.schema;
    };
    // Decided first: they change how their siblings are copied.
    const ifLoosened = 'if' in node && sub(node.if).loosened;
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$schema') {
        continue;
      }
      if (
        DROPPED.has(key) ||
        (!keepRefs && REFS.includes(key)) ||
        (key === 'additionalProperties' && 'patternProperties' in node) ||
        (ifLoosened && (key === 'if' || key === 'then' || key === 'else'))
      ) {
        // additionalProperties meant "not named and matching no pattern":
        // without the patterns it would refuse what they allow.
        loosened = true;
        continue;
      }
      if (REFS.includes(key)) {
        const target =
          typeof value === 'string' ? resolve(root, value) : undefined;
        // Depth restarts: unfoldedSize bounds how far references lead.
        loosened ||= target !== undefined && copy(target, 0).loosened;
        out[key] = value;
      } else if (key === 'not') {
        const inner = sub(value);
        if (inner.loosened) {
          // "not" a wider schema would refuse more: no "not" at all.
          loosened = true;
        } else {
          out.not = inner.schema;
        }
      } else if (key === 'oneOf' && Array.isArray(value)) {
        const branches = value.map(sub);
        if (!branches.some(branch => branch.loosened)) {
          out.oneOf = branches.map(branch => branch.schema);
        } else {
          // Wider branches may both match: "one or more" instead.
          loosened = true;
          if (!('anyOf' in node)) {
            out.anyOf = branches.map(branch => branch.schema);
          }
        }
      } else if (ONE.has(key) || (key === 'items' && !Array.isArray(value))) {
        out[key] = kept(value);
      } else if (LIST.has(key) && Array.isArray(value)) {
        out[key] = value.map(kept);
      } else if ((MAP.has(key) || key === 'dependencies') && isObject(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, inner]) => [
            name,
            // `dependencies` also maps names to lists of names (data).
            key === 'dependencies' && Array.isArray(inner) ? inner : kept(inner)
          ])
        );
      } else {
        // Data (`enum`, `const`, `default`) and plain values, as they are.
        out[key] = value;
      }
    }
    if (
      'maxContains' in out &&
      'contains' in node &&
      sub(node.contains).loosened
    ) {
      // A wider "contains" counts more items.
      delete out.maxContains;
    }
    return { schema: out, loosened };
  };
  const result = copy(root, 0).schema;
  return tooDeep ? null : result;
}
