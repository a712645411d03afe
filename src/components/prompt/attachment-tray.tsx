/**
 * The chips of what is attached to the next prompt, an "Attach files"
 * button, and a drop zone: files dropped on the sidebar are copied next to
 * the notebook, as in a code interpreter.
 */
import React, { useRef, useSyncExternalStore } from 'react';
import type { AttachmentStore } from './attachment-store';
import { useTrans } from '../common/trans';

/** Props of `AttachmentTray`. */
export interface IAttachmentTrayProps {
  store: AttachmentStore;
  /** Copy the files next to the active notebook and attach them. */
  onAttachFiles: (files: File[]) => void;
}

/** Chips and the attach button. */
export function AttachmentTray(props: IAttachmentTrayProps): JSX.Element {
  const { store } = props;
  const trans = useTrans();
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const input = useRef<HTMLInputElement>(null);
  const chips = [
    ...state.files.map(file => ({ key: file.name, label: file.name })),
    ...state.cells.map(cell => ({
      key: cell.id,
      label: trans.__('cell %1', cell.index)
    }))
  ];
  return (
    <div className="jp-AgentSidebar-attachments">
      {chips.map(chip => (
        <span key={chip.key} className="jp-AgentSidebar-chip">
          {chip.label}
          <button
            className="jp-AgentSidebar-chipRemove"
            aria-label={trans.__('Remove %1', chip.label)}
            onClick={() => store.remove(chip.key)}
          >
            ×
          </button>
        </span>
      ))}
      <button
        className="jp-AgentSidebar-link"
        onClick={() => input.current?.click()}
        title={trans.__(
          'Copy files next to the notebook and tell the agent about them (or drop files on the sidebar, from your desktop or the file browser)'
        )}
      >
        {trans.__('Attach files…')}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={trans.__('Attach files to the prompt')}
        onChange={event => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = '';
          if (files.length) {
            props.onAttachFiles(files);
          }
        }}
      />
    </div>
  );
}

/** Drop handlers for the whole sidebar: files from the desktop attach. */
export function fileDropHandlers(onAttachFiles: (files: File[]) => void): {
  onDragOver: (event: React.DragEvent) => void;
  onDrop: (event: React.DragEvent) => void;
} {
  return {
    onDragOver: event => {
      if (event.dataTransfer.types.includes('Files')) {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }
    },
    onDrop: event => {
      const files = Array.from(event.dataTransfer.files ?? []);
      if (files.length) {
        event.preventDefault();
        onAttachFiles(files);
      }
    }
  };
}
