/**
 * Command ids: part of the public contract (docs/extension-api.md), stable across versions.
 */
export namespace CommandIDs {
  /** Open and focus the sidebar. */
  export const open = 'notebook-agent:open';
  /** Stop the run in progress. */
  export const stop = 'notebook-agent:stop';
  /** Start a new chat. */
  export const newChat = 'notebook-agent:new-chat';
  /** Create a notebook from a prompt (args: `prompt`, `path`). */
  export const generateNotebook = 'notebook-agent:generate-notebook';
  /**
   * Ask the agent to fix a cell: `cellId`'s of the current notebook, from
   * the cell context menu the cell right-clicked (`isContextMenu`), else
   * the active cell of the current notebook.
   */
  export const fixCell = 'notebook-agent:fix-cell';
  /** Attach the notebook's selected cells to the next prompt. */
  export const addCellsToChat = 'notebook-agent:add-cells-to-chat';
}
