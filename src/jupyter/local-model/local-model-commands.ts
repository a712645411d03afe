/**
 * Commands of the local model: clear the browser's cache of model files.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import { MODEL_CACHE_NAME } from './local-model-reach';
import { localModelStatus } from './local-model-status';

/** Command ids of the local model. */
export namespace LocalModelCommandIDs {
  export const clearCache = 'notebook-agent:clear-local-model-cache';
}

/** Register the local-model commands. */
export function registerLocalModelCommands(
  commands: CommandRegistry,
  trans: TranslationBundle
): void {
  commands.addCommand(LocalModelCommandIDs.clearCache, {
    label: trans.__('Clear Notebook Agent Local Model Cache'),
    caption: trans.__(
      'Delete the downloaded local model files from the browser cache (they are downloaded again when needed)'
    ),
    execute: async () => {
      const { disposeLocalModel } = await import('./local-model-factory');
      disposeLocalModel();
      const deleted =
        typeof caches !== 'undefined' &&
        (await caches.delete(MODEL_CACHE_NAME));
      localModelStatus.update({ stage: 'idle' });
      return deleted;
    }
  });
}
