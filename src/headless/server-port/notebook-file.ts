/**
 * nbformat 4 notebooks to and from the cells a ServerNotebookPort keeps in
 * memory.
 *
 * Parsing is defensive (a notebook on disk may be hand-edited or from an
 * old nbformat): what the agent does not model (notebook and cell metadata,
 * attachments) is kept as it was and written back unchanged.
 */
import { randomUUID } from 'node:crypto';
import type * as nbformat from '@jupyterlab/nbformat';
import type { CellType, ICellSnapshot } from '../../agent/ports';
import {
  multiline,
  parseOutput,
  toOutput
} from '../../kernel/nbformat-outputs';

/** A cell as the server port keeps it. */
export interface IServerCell extends ICellSnapshot {
  lastRunSource: string | null;
  /** Cell metadata, written back unchanged. */
  metadata: Record<string, unknown>;
  /** Markdown/raw attachments, written back unchanged. */
  attachments?: Record<string, unknown>;
}

/** A notebook document in memory. */
export interface INotebookDocument {
  cells: IServerCell[];
  metadata: Record<string, unknown>;
  /** At least 5: cell ids need nbformat 4.5. */
  nbformatMinor: number;
}

/** A new nbformat cell id (valid per nbformat 4.5: [a-zA-Z0-9-_], ≤ 64). */
export function newCellId(): string {
  return randomUUID();
}

/** An empty notebook for `kernelName`. */
export function emptyNotebook(kernelName: string): INotebookDocument {
  return {
    cells: [],
    metadata: {
      kernelspec: { name: kernelName, display_name: kernelName },
      language_info: { name: 'python' }
    },
    nbformatMinor: 5
  };
}

/**
 * Read a notebook model's content. Cells without a valid id get a fresh one
 * from `newId` (nbformat < 4.5); duplicate ids are replaced, since the agent
 * addresses cells by id.
 */
export function parseNotebook(
  content: unknown,
  newId: () => string = newCellId
): INotebookDocument {
  const nb = asObject(content);
  const seen = new Set<string>();
  const cells = (Array.isArray(nb.cells) ? nb.cells : []).map(raw => {
    const cell = asObject(raw);
    let id = typeof cell.id === 'string' ? cell.id : '';
    if (!/^[a-zA-Z0-9-_]{1,64}$/.test(id) || seen.has(id)) {
      id = newId();
    }
    seen.add(id);
    const type: CellType =
      cell.cell_type === 'code' || cell.cell_type === 'markdown'
        ? cell.cell_type
        : 'raw';
    const source = multiline(cell.source);
    const executionCount =
      type === 'code' && typeof cell.execution_count === 'number'
        ? cell.execution_count
        : null;
    const parsed: IServerCell = {
      id,
      type,
      source,
      executionCount,
      outputs:
        type === 'code' && Array.isArray(cell.outputs)
          ? cell.outputs.flatMap(parseOutput)
          : [],
      // What ran is unknown for a loaded notebook: assume the saved source.
      lastRunSource: executionCount !== null ? source : null,
      metadata: asObject(cell.metadata)
    };
    if (cell.attachments !== undefined) {
      parsed.attachments = asObject(cell.attachments);
    }
    return parsed;
  });
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  return {
    cells,
    metadata: asObject(nb.metadata),
    nbformatMinor: Math.max(5, minor)
  };
}

/** The nbformat 4.5+ JSON of a document, ready for the contents API. */
export function toNotebookContent(
  doc: INotebookDocument
): nbformat.INotebookContent {
  const cells = doc.cells.map((cell): nbformat.ICell => {
    const base = {
      id: cell.id,
      source: cell.source,
      metadata: cell.metadata as nbformat.IBaseCell['metadata']
    };
    if (cell.type === 'code') {
      return {
        ...base,
        cell_type: 'code',
        execution_count: cell.executionCount,
        outputs: cell.outputs.map(o => toOutput(o, cell.executionCount))
      };
    }
    const attachments = cell.attachments
      ? { attachments: cell.attachments as nbformat.IAttachments }
      : {};
    return { ...base, ...attachments, cell_type: cell.type };
  });
  return {
    cells,
    metadata: doc.metadata as nbformat.INotebookMetadata,
    nbformat: 4,
    nbformat_minor: doc.nbformatMinor
  };
}

/** A copy of a cell the caller may keep (outputs are immutable values). */
export function cellSnapshot(cell: IServerCell): ICellSnapshot {
  return {
    id: cell.id,
    type: cell.type,
    source: cell.source,
    executionCount: cell.executionCount,
    outputs: [...cell.outputs],
    lastRunSource: cell.lastRunSource
  };
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : {};
}
