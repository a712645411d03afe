/**
 * Tokens used by the chat, and what they cost where the model's price is
 * known (list prices, src/agent/model/prices.ts); the tooltip breaks it
 * down and shows the last turn.
 */
import React from 'react';
import { costOf, priceOf } from '../agent/model/prices';
import type { IUsage } from '../agent/types';

/** The header's usage badge; nothing before the first tokens. */
export function UsageBadge(props: {
  usage: IUsage;
  lastTurn: IUsage | null;
  model: string;
}): JSX.Element | null {
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
  const title = [
    `This chat: ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens` +
      (cost !== null ? ` (~${formatCost(cost)} at list prices)` : ''),
    lastTurn
      ? `Last turn: ${lastTurn.promptTokens + lastTurn.completionTokens} tokens` +
        (turnCost !== null ? ` (~${formatCost(turnCost)})` : '')
      : '',
    price === null ? 'The price of this model is not known.' : ''
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className="jp-AgentSidebar-usage" title={title}>
      {formatTokens(total)} tokens
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
