import React from 'react';
import { PlanView } from '../transcript/plan-view';
import { render } from './render';

const plan = [
  { title: 'Load the data', status: 'done' as const },
  { title: 'Plot revenue', status: 'in-progress' as const },
  { title: 'Summarise', status: 'pending' as const }
];

describe('PlanView', () => {
  it('while the run goes on: steps to do and under way, sticky at the top', () => {
    const html = render(React.createElement(PlanView, { plan }));
    expect(html).toContain('Plan · 1/3 done');
    expect(html).toContain('class="jp-AgentSidebar-plan"');
    expect(html).toContain('aria-label="Plot revenue: in progress"');
    expect(html).toContain('aria-label="Summarise: to do"');
    expect(html).toContain('◐');
  });

  it('after the run: what was not ticked off says so, and nothing claims to be under way', () => {
    const html = render(React.createElement(PlanView, { plan, ended: true }));
    expect(html).toContain('Plan · 1/3 marked done when the run ended');
    expect(html).toContain('jp-AgentSidebar-plan jp-mod-ended');
    expect(html).toContain('aria-label="Load the data: done"');
    expect(html).toContain('aria-label="Plot revenue: not marked done"');
    expect(html).toContain('aria-label="Summarise: not marked done"');
    expect(html).not.toContain('◐');
    expect(html).not.toContain('in progress');
    expect(html).not.toContain('to do');
  });

  it('after a run that ticked every step: done, as during it', () => {
    const html = render(
      React.createElement(PlanView, {
        plan: plan.map(step => ({ ...step, status: 'done' as const })),
        ended: true
      })
    );
    expect(html).toContain('Plan · 3/3 done');
    expect(html).not.toContain('not marked done');
  });
});
