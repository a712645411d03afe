/**
 * Walking a JSON schema as ajv reads it (draft-07 and the keywords of
 * later drafts): which values are subschemas, where a local reference
 * leads, and how big the schema is, plainly and unfolded through its
 * references. For bounded-schema.ts; pure, and iterative or depth-bounded
 * where the input may nest deeply.
 */

/** Any JSON value. */
export type Json = unknown;

/** A schema: an object, or `true`/`false`. */
export type Schema = Record<string, Json> | boolean;

/** References that ajv follows. */
export const REFS = ['$ref', '$dynamicRef', '$recursiveRef'];

/** Keywords that give a subschema its own base for references. */
export const ANCHORS = ['$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor'];

/** Keywords whose value is one schema. */
export const ONE = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema'
]);

/** Keywords whose value is a list of schemas (`items` may be either). */
export const LIST = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
  'items'
]);

/** Keywords whose value maps names to schemas. */
export const MAP = new Set([
  'properties',
  '$defs',
  'definitions',
  'dependentSchemas'
]);

/**
 * How many subschemas `root` holds when every local `$ref` is replaced by
 * what it points at (figures past `limit` count as `limit + 1`);
 * `Infinity` for a reference that leads back into itself, one this does
 * not resolve (an anchor, another document), or nesting past `maxDepth`.
 * Linear in the schema's size: each subschema is counted once.
 */
export function unfoldedSize(
  root: Record<string, unknown>,
  limit: number,
  maxDepth: number
): number {
  const memo = new Map<object, number>();
  const open = new Set<object>();
  const count = (node: Json, depth: number): number => {
    if (!isObject(node)) {
      return 1;
    }
    const known = memo.get(node);
    if (known !== undefined) {
      return known;
    }
    if (
      open.has(node) ||
      depth > maxDepth ||
      (node !== root && ANCHORS.some(key => key in node))
    ) {
      // A loop; or a subschema with its own base, where "#…" means
      // something else than here: not followed, so not kept.
      return Infinity;
    }
    open.add(node);
    let total = 1;
    for (const child of children(node)) {
      total += count(child, depth + 1);
    }
    for (const key of REFS) {
      const ref = node[key];
      if (typeof ref === 'string') {
        const target = resolve(root, ref);
        total += target === undefined ? Infinity : count(target, depth + 1);
      }
    }
    open.delete(node);
    // Past the bound the exact figure does not matter: keep sums finite.
    const bounded = Math.min(total, limit + 1);
    memo.set(node, total === Infinity ? Infinity : bounded);
    return total === Infinity ? Infinity : bounded;
  };
  return count(root, 0);
}

/** Whether every reference in `root` leads to a subschema of it. */
export function refsResolve(root: Schema): boolean {
  if (!isObject(root)) {
    return true;
  }
  const stack: Json[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (!isObject(node)) {
      continue;
    }
    for (const key of REFS) {
      const ref = node[key];
      if (
        ref !== undefined &&
        (typeof ref !== 'string' || resolve(root, ref) === undefined)
      ) {
        return false;
      }
    }
    for (const child of children(node)) {
      stack.push(child);
    }
  }
  return true;
}

/** Subschemas of `root` as a plain tree (references not followed), counted up to `limit + 1`. */
export function treeSize(root: Json, limit: number): number {
  let size = 0;
  const stack: Json[] = [root];
  while (stack.length && size <= limit) {
    const node = stack.pop();
    size++;
    if (isObject(node)) {
      for (const child of children(node)) {
        stack.push(child);
      }
    }
  }
  return size;
}

/** The subschemas directly inside `node`. */
export function children(node: Record<string, Json>): Json[] {
  const found: Json[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (ONE.has(key) || (key === 'items' && !Array.isArray(value))) {
      found.push(value);
    } else if (LIST.has(key) && Array.isArray(value)) {
      // One by one: spreading a huge list overflows the argument limit.
      value.forEach(item => found.push(item));
    } else if (
      (MAP.has(key) || key === 'dependencies' || key === 'patternProperties') &&
      isObject(value)
    ) {
      for (const inner of Object.values(value)) {
        if (!Array.isArray(inner)) {
          found.push(inner);
        }
      }
    }
  }
  return found;
}

/** What a local reference ("#", "#/$defs/a~1b") points at in `root`. */
export function resolve(
  root: Record<string, unknown>,
  ref: string
): Json | undefined {
  if (ref === '#') {
    return root;
  }
  if (!ref.startsWith('#/')) {
    return undefined;
  }
  let node: Json = root;
  for (const raw of ref.slice(2).split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node) && /^\d+$/.test(part)) {
      node = node[Number(part)];
    } else if (
      isObject(node) &&
      Object.prototype.hasOwnProperty.call(node, part)
    ) {
      node = node[part];
    } else {
      return undefined;
    }
  }
  return node;
}

/** Whether `value` is a JSON object (not null, not a list). */
export function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
