/**
 * The check of a tool defined outside the agent (INotebookAgent.registerTool),
 * apart from the tool it becomes (./external-tool.ts): the browser checks a
 * registration at once, before the tools and the observations load.
 */
import type { IExternalTool } from './external-tool';
import type { ToolKind } from './registry';
import { ToolRegistrationError } from './registration';

const KINDS: ReadonlyArray<ToolKind> = ['read', 'edit', 'run', 'restart'];

/**
 * Throw (a ToolRegistrationError saying what is wrong) when `definition`
 * cannot be offered to a model.
 */
export function checkExternalTool(definition: IExternalTool): void {
  const problem = (text: string) =>
    new ToolRegistrationError(
      `Tool "${String(definition?.name)}" cannot be registered: ${text}.`
    );
  if (!definition || typeof definition.name !== 'string') {
    throw problem('it needs a name');
  }
  if (
    typeof definition.description !== 'string' ||
    !definition.description.trim()
  ) {
    throw problem('it needs a description (the model reads it)');
  }
  const schema = definition.parameters as { type?: unknown } | undefined;
  if (!schema || typeof schema !== 'object' || schema.type !== 'object') {
    throw problem(
      'its parameters must be a JSON schema of an object ({"type": "object", "properties": {…}})'
    );
  }
  if (!KINDS.includes(definition.kind)) {
    throw problem(`its kind must be one of ${KINDS.join(', ')}`);
  }
  if (typeof definition.execute !== 'function') {
    throw problem('it needs an execute function');
  }
  if (definition.title !== undefined && typeof definition.title !== 'string') {
    throw problem('its title must be a string');
  }
}
