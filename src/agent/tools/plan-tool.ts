/**
 * `update_plan`: the agent states its plan as a checklist and ticks steps
 * off as it goes, so the user can follow a long task (the sidebar shows it).
 */
import type { IPlanStep } from '../types';
import { defineTool } from './registry';

interface IPlanArgs {
  steps: Array<{ title: string; status?: string; done?: boolean }>;
}

const STATUSES: ReadonlyArray<IPlanStep['status']> = [
  'pending',
  'in-progress',
  'done'
];

/** Normalise what models send ("in_progress", `done: true`, "completed"). */
function statusOf(step: IPlanArgs['steps'][number]): IPlanStep['status'] {
  const raw = (step.status ?? '').toLowerCase().replace(/[_ ]/g, '-');
  if (step.done === true || raw === 'completed' || raw === 'complete') {
    return 'done';
  }
  return (STATUSES as readonly string[]).includes(raw)
    ? (raw as IPlanStep['status'])
    : 'pending';
}

/** `update_plan`: show the plan; call again whenever a step starts or ends. */
export const updatePlan = defineTool<IPlanArgs>({
  name: 'update_plan',
  title: 'Update the plan',
  kind: 'read',
  description:
    'Show your plan to the user as a checklist of 2–8 short steps. Call it before you start, ' +
    'and again with the whole list whenever a step starts (in-progress) or is done.',
  parameters: {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        minItems: 1,
        maxItems: 12,
        items: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            status: {
              type: 'string',
              description: 'pending, in-progress or done'
            }
          },
          required: ['title']
        }
      }
    },
    required: ['steps'],
    additionalProperties: false
  },
  async execute(args) {
    const plan: IPlanStep[] = args.steps.map(step => ({
      title: String(step.title).trim().slice(0, 200),
      status: statusOf(step)
    }));
    const done = plan.filter(step => step.status === 'done').length;
    return {
      ok: true,
      output: `Plan shown to the user (${done}/${plan.length} done).`,
      preview: plan
        .map(s => `${s.status === 'done' ? '[x]' : '[ ]'} ${s.title}`)
        .join('\n'),
      plan
    };
  }
});
