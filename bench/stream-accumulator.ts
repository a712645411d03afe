/**
 * Stream handling in Node: how fast TurnAccumulator (src/agent/model/
 * accumulator.ts) turns streamed chunks into assistant turns.
 *
 * The recording is every stream in src/agent/__tests__/fixtures/chunks/
 * (real servers' quirks: OpenAI, vLLM, Ollama, llama.cpp, LM Studio, …),
 * parsed the way the SDK parses SSE, replayed over and over until 1M chunks
 * have been fed, one accumulator per recorded turn (streams that carry an
 * error chunk throw ModelStreamError, as in a real run; that is counted).
 *
 * Three timings over the same 1M chunks:
 *  - accumulate: TurnAccumulator.add + result() on pre-parsed chunks (what
 *    the loop does with what the client yields);
 *  - floor: JSON.parse of each chunk's data line alone (work any client
 *    must do per chunk, so the natural yardstick);
 *  - parse + accumulate: both, the whole client-side cost per chunk.
 * Prints chunks/s, MB/s of SSE data and µs per chunk, the accumulate/floor
 * ratio, and the CPU share at 1,000 chunks/s (a fast model).
 * Target (ours; the issue sets none): ≥ 1M chunks/s accumulated.
 *
 * Run: npx tsx bench/stream-accumulator.ts [CHUNKS]   (default 1,000,000)
 */
import {
  fixtureNames,
  parseSse,
  readFixture
} from '../src/agent/__tests__/fixtures/chunks/sse';
import { TurnAccumulator } from '../src/agent/model/accumulator';
import type { IChatChunk } from '../src/agent/model/types';
import { fixed, print, runMain, target } from './lib/report';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const FAST_MODEL_CHUNKS_PER_S = 1000;

interface IRecording {
  chunks: IChatChunk[];
  /** The JSON text of each chunk, as it came over the wire. */
  lines: string[];
}

function recordings(): IRecording[] {
  return fixtureNames().map(name => {
    const chunks = parseSse(readFixture(name));
    return { chunks, lines: chunks.map(chunk => JSON.stringify(chunk)) };
  });
}

/** Feed `total` chunks, cycling through the recordings; returns turns seen. */
function replay(
  recs: IRecording[],
  total: number,
  step: (rec: IRecording, index: number, acc: TurnAccumulator) => void
): { turns: number; errors: number; ms: number } {
  let fed = 0;
  let turns = 0;
  let errors = 0;
  const started = performance.now();
  while (fed < total) {
    for (const rec of recs) {
      const acc = new TurnAccumulator();
      turns += 1;
      try {
        for (let i = 0; i < rec.chunks.length && fed < total; i++) {
          fed += 1;
          step(rec, i, acc);
        }
        acc.result();
      } catch {
        errors += 1; // an error chunk: the turn ends as it would in a run
      }
      if (fed >= total) {
        break;
      }
    }
  }
  return { turns, errors, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const recs = recordings();
  const perPass = recs.reduce((n, r) => n + r.chunks.length, 0);
  const bytesPerPass = recs.reduce(
    (n, r) => n + r.lines.reduce((m, l) => m + l.length, 0),
    0
  );
  const mb = (TOTAL / perPass) * (bytesPerPass / 1e6);
  print(
    `recording: ${recs.length} streams, ${perPass} chunks, ${bytesPerPass} bytes of JSON per pass; replaying ${TOTAL} chunks (${fixed(mb, 1)} MB)`
  );
  // Warm the JIT on one pass of each path.
  replay(recs, perPass * 20, (rec, i, acc) => acc.add(rec.chunks[i]));
  replay(recs, perPass * 20, (rec, i) => JSON.parse(rec.lines[i]));

  let sink = 0;
  const acc = replay(recs, TOTAL, (rec, i, a) => {
    sink += a.add(rec.chunks[i]).length;
  });
  const floor = replay(recs, TOTAL, (rec, i) => {
    sink += (JSON.parse(rec.lines[i]) as IChatChunk).choices?.length ?? 0;
  });
  const both = replay(recs, TOTAL, (rec, i, a) => {
    sink += a.add(JSON.parse(rec.lines[i]) as IChatChunk).length;
  });
  const line = (name: string, r: { ms: number }) => {
    const perS = TOTAL / (r.ms / 1000);
    print(
      `${name.padEnd(20)} ${fixed(r.ms, 0).padStart(6)} ms  ${fixed(perS / 1e6, 2)}M chunks/s  ${fixed(mb / (r.ms / 1000), 0)} MB/s  ${fixed((r.ms * 1000) / TOTAL, 3)} µs/chunk`
    );
    return perS;
  };
  const rate = line('accumulate', acc);
  line('floor: JSON.parse', floor);
  line('parse + accumulate', both);
  print(
    `turns ${acc.turns} (${acc.errors} ended by an error chunk); accumulate/floor ${fixed(acc.ms / floor.ms)}x; ` +
      `CPU share at ${FAST_MODEL_CHUNKS_PER_S} chunks/s: ${fixed((100 * FAST_MODEL_CHUNKS_PER_S * both.ms) / TOTAL / 1000, 3)} %  (checksum ${sink % 997})`
  );
  target('accumulate throughput', rate / 1e6, 1, 'at-least', 'M chunks/s');
}

runMain(main);
