/**
 * Tokens used by the chat, and what they cost where the model's price is
 * known (list prices, src/agent/model/prices.ts); the tooltip breaks it
 * down and shows the last turn.
 */
import React from 'react';
import { useTrans } from '../common/trans';
import { costOf, priceOf } from '../../agent/model/prices';
import type { IUsage } from '../../agent/types';

/** The header's usage badge; nothing before the first tokens. */
export function UsageBadge(props: {
  usage: IUsage;
  lastTurn: IUsage | null;
  model: string;
}): JSX.Element | null {
  const trans = useTrans();
  const { usage, lastTurn } = props;
  const total = usage.promptTokens + usage.completionTokens;
  if (total === 0) {
    return null;
  }
  const price = priceOf(props.model);
  const cost = costOf(price, usage.promptTokens, usage.completionTokens);
  const turnCost = lastTurn
    ? costOf(price, lastTurn.promptTokens, lastTurn.completionTokens)
    : null;
  const lastTokens = lastTurn
    ? lastTurn.promptTokens + lastTurn.completionTokens
    : 0;
  const title = [
    cost !== null
      ? trans.__(
          'This chat: %1 prompt + %2 completion tokens (~%3 at list prices)',
          usage.promptTokens,
          usage.completionTokens,
          formatCost(cost)
        )
      : trans.__(
          'This chat: %1 prompt + %2 completion tokens',
          usage.promptTokens,
          usage.completionTokens
        ),
    lastTurn
      ? turnCost !== null
        ? trans.__(
            'Last turn: %1 tokens (~%2)',
            lastTokens,
            formatCost(turnCost)
          )
        : trans.__('Last turn: %1 tokens', lastTokens)
      : '',
    price === null ? trans.__('The price of this model is not known.') : ''
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className="jp-AgentSidebar-usage" title={title}>
      {trans.__('%1 tokens', formatTokens(total))}
      {cost !== null && cost > 0 ? ` · ~${formatCost(cost)}` : ''}
    </span>
  );
}

/** 1234 → "1.2k". */
function formatTokens(count: number): string {
  return count < 1000
    ? String(count)
    : `${(count / 1000).toFixed(count < 10000 ? 1 : 0)}k`;
}

/** Dollars with sensible precision for tiny amounts. */
export function formatCost(dollars: number): string {
  if (dollars > 0 && dollars < 0.0001) {
    return '<$0.0001';
  }
  return dollars >= 1
    ? `$${dollars.toFixed(2)}`
    : dollars >= 0.01
      ? `$${dollars.toFixed(3)}`
      : `$${dollars.toFixed(4)}`;
}
