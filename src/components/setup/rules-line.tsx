/**
 * "Rules: AGENTS.md · 1.2 KB": which project rules the agent follows in the
 * active notebook; each file name opens that file.
 */
import React, { useSyncExternalStore } from 'react';
import {
  RULES_BUDGET_BYTES,
  ruleSize,
  rulesTruncated,
  type IProjectRules
} from '../../agent/context/project-rules';
import type { IReadable } from '../../agent/value-store';
import { useTrans } from '../common/trans';

/** Props of `RulesLine`. */
export interface IRulesLineProps {
  rules: IReadable<IProjectRules | null>;
  /** Open a rules file (its path from the server root). */
  onOpen: (path: string) => void;
}

/** The line, or nothing when no rules apply (or they are turned off). */
export function RulesLine({
  rules,
  onOpen
}: IRulesLineProps): JSX.Element | null {
  const trans = useTrans();
  const current = useSyncExternalStore(rules.subscribe, rules.getSnapshot);
  if (!current?.files.length) {
    return null;
  }
  const bytes = current.files.reduce((sum, file) => sum + file.bytes, 0);
  const truncated = rulesTruncated(current);
  return (
    <div
      className="jp-AgentSidebar-rules"
      role="group"
      aria-label={trans.__('Project rules')}
    >
      {trans.__('Rules:')}{' '}
      {current.files.map((file, index) => (
        <React.Fragment key={file.path}>
          {index > 0 && ', '}
          <button
            className="jp-AgentSidebar-link jp-AgentSidebar-ruleFile"
            title={trans.__('Open %1', file.path)}
            onClick={() => onOpen(file.path)}
          >
            {file.path}
          </button>
        </React.Fragment>
      ))}{' '}
      · {ruleSize(bytes)}
      {truncated && (
        <span
          className="jp-AgentSidebar-rulesCut"
          title={trans.__(
            'Project rules are capped at %1 in all: the farthest are cut first.',
            ruleSize(RULES_BUDGET_BYTES)
          )}
        >
          {' '}
          {trans.__('(truncated)')}
        </span>
      )}
    </div>
  );
}
