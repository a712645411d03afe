/**
 * The form of the "Generate notebook" dialog: the request, the file name
 * (derived from the request until the user types one), the kernel, files
 * to attach, and whether code runs without asking in the new notebook.
 */
import React, { useState } from 'react';
import { useTrans } from '../common/trans';

/** What the user chose. */
export interface IGenerateRequest {
  prompt: string;
  /** File name (or path relative to the target directory), ending in .ipynb. */
  name: string;
  kernelName: string;
  files: File[];
  /** Run the agent's cells in the new notebook without asking first. */
  runWithoutAsking: boolean;
}

/** Props of `GenerateForm`. */
export interface IGenerateFormProps {
  initial: IGenerateRequest;
  kernels: ReadonlyArray<{ name: string; displayName: string }>;
  /** Receives every change, so the dialog can read the latest values. */
  onChange: (value: IGenerateRequest) => void;
}

/** A file name from the request: an explicit "….ipynb" wins, else its first words. */
export function notebookNameFor(prompt: string): string {
  const named = /([\w.-]+\.ipynb)\b/i.exec(prompt);
  if (named) {
    return named[1];
  }
  const words = prompt
    .toLowerCase()
    .replace(/[^a-z0-9\s_-]/g, ' ')
    .split(/\s+/)
    .filter(word => word.length > 2 && !STOP_WORDS.has(word))
    .slice(0, 4);
  return `${words.join('_') || 'generated'}.ipynb`;
}

const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'that',
  'this',
  'into',
  'show',
  'create',
  'make',
  'please'
]);

/** The form. */
export function GenerateForm(props: IGenerateFormProps): JSX.Element {
  const trans = useTrans();
  const [value, setValue] = useState(props.initial);
  const [nameEdited, setNameEdited] = useState(
    props.initial.name !== '' &&
      props.initial.name !== notebookNameFor(props.initial.prompt)
  );
  const update = (patch: Partial<IGenerateRequest>) => {
    const next = { ...value, ...patch };
    setValue(next);
    props.onChange(next);
  };
  return (
    <div className="jp-AgentGenerateDialog">
      <label>
        {trans.__('What should the notebook do?')}
        <textarea
          autoFocus
          aria-label={trans.__('What should the notebook do?')}
          placeholder={trans.__(
            'Analyze sales_data.csv: top 5 products by total sales, and a line plot of monthly sales.'
          )}
          value={value.prompt}
          onChange={event => {
            const prompt = event.target.value;
            update(
              nameEdited
                ? { prompt }
                : { prompt, name: notebookNameFor(prompt) }
            );
          }}
        />
      </label>
      <label>
        {trans.__('File name')}
        <input
          aria-label={trans.__('File name')}
          value={value.name}
          onChange={event => {
            setNameEdited(true);
            update({ name: event.target.value });
          }}
        />
      </label>
      <label>
        {trans.__('Kernel')}
        <select
          aria-label={trans.__('Kernel')}
          value={value.kernelName}
          onChange={event => update({ kernelName: event.target.value })}
        >
          {props.kernels.map(kernel => (
            <option key={kernel.name} value={kernel.name}>
              {kernel.displayName}
            </option>
          ))}
        </select>
      </label>
      <label>
        {trans.__('Attach files (copied next to the notebook)')}
        <input
          type="file"
          multiple
          aria-label={trans.__('Attach files')}
          onChange={event =>
            update({ files: Array.from(event.target.files ?? []) })
          }
        />
      </label>
      <label className="jp-AgentGenerateDialog-check">
        <input
          type="checkbox"
          checked={value.runWithoutAsking}
          onChange={event => update({ runWithoutAsking: event.target.checked })}
        />{' '}
        {trans.__('Run the new notebook’s cells without asking me first')}
      </label>
    </div>
  );
}
