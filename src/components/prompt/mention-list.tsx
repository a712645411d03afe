/**
 * The `@` picker's list: a listbox above the prompt, driven from the text
 * box (which keeps the focus and points at the highlighted option with
 * aria-activedescendant). A click picks an option too.
 */
import React, { useEffect, useRef } from 'react';
import type { MentionOption } from './mentions';
import { useTrans } from '../common/trans';

/** Props of `MentionList`. */
export interface IMentionListProps {
  /** The listbox's id (the text box's aria-controls). */
  id: string;
  options: ReadonlyArray<MentionOption>;
  active: number;
  onHover: (index: number) => void;
  onPick: (option: MentionOption) => void;
}

/** The id of option `index` of the listbox `listId`. */
export function mentionOptionId(listId: string, index: number): string {
  return `${listId}-option-${index}`;
}

/** The listbox of cells and variables to mention. */
export function MentionList(props: IMentionListProps): JSX.Element {
  const trans = useTrans();
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current
      ?.querySelector('[aria-selected="true"]')
      ?.scrollIntoView?.({ block: 'nearest' });
  }, [props.active]);
  return (
    <>
      <ul
        ref={list}
        id={props.id}
        role="listbox"
        aria-label={trans.__('Cells and variables to mention')}
        className="jp-AgentSidebar-mentions"
      >
        {props.options.map((option, index) => (
          <li
            key={option.key}
            id={mentionOptionId(props.id, index)}
            role="option"
            aria-selected={index === props.active}
            className={`jp-AgentSidebar-mention jp-mod-${option.kind}`}
            // Keep the focus in the text box.
            onMouseDown={event => event.preventDefault()}
            onMouseEnter={() => props.onHover(index)}
            onClick={() => props.onPick(option)}
          >
            {option.label}
          </li>
        ))}
      </ul>
      <div className="jp-AgentSidebar-srOnly" role="status">
        {trans._n(
          '%1 suggestion: arrow keys to choose, Enter to pick, Escape to close.',
          '%1 suggestions: arrow keys to choose, Enter to pick, Escape to close.',
          props.options.length
        )}
      </div>
    </>
  );
}
