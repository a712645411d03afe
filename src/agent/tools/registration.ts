/**
 * The rules every added tool's name follows, and the errors that say a
 * registration is refused: shared by the registry (./registry.ts) and the
 * queue that takes registrations before the registry exists
 * (./tool-queue.ts), so both refuse the same names in the same words.
 */

/** Why a tool cannot be registered (a taken name, an invalid definition). */
export class ToolRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolRegistrationError';
  }
}

/** Names the model accepts for a function (OpenAI's rule). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Throw when `name` is not one the model accepts. */
export function checkToolName(name: string): void {
  if (!TOOL_NAME.test(name)) {
    throw new ToolRegistrationError(
      `"${name}" is not a valid tool name: use 1–64 letters, digits, "_" or "-".`
    );
  }
}

/** The error for `name`, already registered by `holder`. */
export function nameTaken(name: string, holder: string): ToolRegistrationError {
  return new ToolRegistrationError(
    `A tool named "${name}" is already registered (by ${holder}): ` +
      'choose another name, e.g. prefixed with your extension\'s ("myext__tool").'
  );
}
