/**
 * Drops from JupyterLab's file browser onto a node: the browser drags with
 * Lumino's drag and drop (`lm-dragenter`, `lm-dragover`, `lm-drop`), not the
 * HTML5 one, and puts the dragged paths under `application/x-jupyter-icontents`.
 */
import type { Drag } from '@lumino/dragdrop';

/** The file browser's mime for dragged contents: an array of paths. */
export const CONTENTS_MIME = 'application/x-jupyter-icontents';

/** The class the node has while something droppable is over it. */
export const DROP_TARGET_CLASS = 'jp-mod-dropTarget';

/** The dragged paths, or null when the drag holds none. */
function draggedPaths(event: Drag.Event): string[] | null {
  if (!event.mimeData.hasData(CONTENTS_MIME)) {
    return null;
  }
  const data: unknown = event.mimeData.getData(CONTENTS_MIME);
  return Array.isArray(data) && data.every(p => typeof p === 'string')
    ? data
    : null;
}

/**
 * Accept file-browser drops on `node`: `onPaths` gets the dropped paths.
 * Returns the function that stops accepting them.
 */
export function acceptContentsDrops(
  node: HTMLElement,
  onPaths: (paths: string[]) => void
): () => void {
  const handle = (event: Event) => {
    const drag = event as Drag.Event;
    const paths = draggedPaths(drag);
    if (event.type === 'lm-dragleave') {
      // Leaving for a child of the node is not leaving the node.
      if (!node.contains(drag.relatedTarget as Node | null)) {
        node.classList.remove(DROP_TARGET_CLASS);
      }
      return;
    }
    if (!paths) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    // The browser offers "move" only; the files stay where they are (they
    // are attached by path, or copied), whatever the action is called.
    drag.dropAction = drag.proposedAction;
    if (event.type === 'lm-drop') {
      node.classList.remove(DROP_TARGET_CLASS);
      if (paths.length) {
        onPaths(paths);
      }
    } else {
      node.classList.add(DROP_TARGET_CLASS);
    }
  };
  const types = ['lm-dragenter', 'lm-dragover', 'lm-dragleave', 'lm-drop'];
  types.forEach(type => node.addEventListener(type, handle));
  return () => types.forEach(type => node.removeEventListener(type, handle));
}
