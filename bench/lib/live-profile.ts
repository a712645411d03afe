/**
 * `bench/agent-overhead.ts --profile`: CPU profiles of the live port's 1 MB
 * case, one notebook path at a time (Shift+Enter, the port, the tool), in a
 * JupyterLab page in headless Chromium, and the functions whose self time
 * differs most between Shift+Enter and each agent path: where the agent's
 * overhead over running the cell as the user does goes.
 */
import { openLabPage, type ILabPage } from './lab-page';
import { fixed, print } from './report';

interface IProfileNode {
  id: number;
  callFrame: {
    functionName: string;
    url: string;
    lineNumber: number;
    columnNumber: number;
  };
  children?: number[];
}

interface IProfile {
  nodes: IProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time (ms) per function, summed over the profile. A regular
 * expression's compiled code shows as a frame of its own ("RegExp: …") or
 * inside its caller, as V8 happens to tier it: its time goes to the caller,
 * or two profiles of the same work would differ by where it landed.
 */
function selfTimes(profile: IProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map(node => [node.id, node]));
  const parent = new Map<number, number>();
  profile.nodes.forEach(node =>
    node.children?.forEach(child => parent.set(child, node.id))
  );
  const times = new Map<string, number>();
  profile.samples.forEach((sampled, i) => {
    let id: number | undefined = sampled;
    while (
      id !== undefined &&
      byId.get(id)!.callFrame.functionName.startsWith('RegExp:') &&
      parent.has(id)
    ) {
      id = parent.get(id);
    }
    const frame = byId.get(id ?? sampled)!.callFrame;
    const file = (frame.url.split('/').pop() ?? '').split('?')[0];
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber}:${frame.columnNumber}`;
    times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return times;
}

async function profilePath(
  lab: ILabPage,
  code: string,
  rounds: number,
  path: string
): Promise<{ median: number; times: Map<string, number> }> {
  await lab.cdp.send('Profiler.enable');
  await lab.cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await lab.cdp.send('Profiler.start');
  const samples = await lab.hook<Record<string, number[]>>(
    'overhead',
    code,
    rounds,
    3,
    path
  );
  const { profile } = (await lab.cdp.send('Profiler.stop')) as unknown as {
    profile: IProfile;
  };
  const sorted = [...samples[path]].sort((a, b) => a - b);
  const times = selfTimes(profile);
  // Per round, as the figure is.
  times.forEach((ms, key) => times.set(key, ms / (rounds + 3)));
  return { median: sorted[Math.floor(sorted.length / 2)], times };
}

/** Profile the 1 MB case on each path and print where the agent's paths spend more. */
export async function liveProfile(code: string, rounds: number): Promise<void> {
  const lab = await openLabPage();
  try {
    const base = await profilePath(lab, code, rounds, 'shiftEnter');
    print(`Shift+Enter: median ${fixed(base.median)} ms`);
    for (const path of ['port', 'tool']) {
      const other = await profilePath(lab, code, rounds, path);
      print(
        `\n${path}: median ${fixed(other.median)} ms (${fixed(other.median - base.median)} ms over Shift+Enter); self time per round, most above Shift+Enter's:`
      );
      const keys = new Set([...base.times.keys(), ...other.times.keys()]);
      [...keys]
        .map(key => ({
          key,
          diff: (other.times.get(key) ?? 0) - (base.times.get(key) ?? 0),
          ms: other.times.get(key) ?? 0
        }))
        .sort((a, b) => b.diff - a.diff)
        .slice(0, 15)
        .forEach(row =>
          print(`  +${fixed(row.diff)} ms  (${fixed(row.ms)} ms)  ${row.key}`)
        );
    }
  } finally {
    await lab.dispose();
  }
}
