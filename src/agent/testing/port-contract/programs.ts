/**
 * The Python the contract cases run, by name, and how the fake notebook
 * plays each one (./fake-harness.ts): real kernels run the source, the
 * fake looks the source up here. A program the fake cannot play honestly
 * (a process ignoring SIGINT, a crash, a 50 MB stream, kernel messages
 * such as clear_output) has no fake play, and its cases are marked not
 * applicable for the fake.
 */
import type { CellOutput } from '../../ports';

/** Sources by name. */
export const PROGRAMS = {
  answer: 'print(6 * 7)',
  divide: '1 / 0',
  product: '6 * 7',
  defineX: 'x = 20',
  useX: 'print(x * 2 + 2)',
  counter:
    'import time\nfor i in range(100):\n    print(i, flush=True)\n    time.sleep(0.1)',
  sleeper: "import time\nprint('sleeping', flush=True)\ntime.sleep(60)",
  slowStop:
    "import time\nprint('working', flush=True)\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    time.sleep(1.5)\n    print('cleaned up', flush=True)\n    raise",
  ignoresSigint:
    "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ignoring', flush=True)\nwhile True:\n    time.sleep(0.05)",
  /**
   * From the next request on, the kernel spends 2 s in IPython's input
   * transformers before the code runs: an interrupt then lands in the
   * kernel's own machinery, which drops the request (no execute_reply).
   */
  slowStarts:
    'import time\n' +
    'def _slow_start(lines):\n    time.sleep(2)\n    return lines\n' +
    'get_ipython().input_transformers_post.append(_slow_start)',
  catchesInterrupt:
    "import time\ntry:\n    time.sleep(30)\nexcept KeyboardInterrupt:\n    print('caught', flush=True)",
  dies: "print('about to die', flush=True)\nimport os\nos._exit(1)",
  asksInput: "name = input('name?')",
  flood:
    "import sys\nline = 'y' * 1023 + '\\n'\nfor _ in range(51200):\n    sys.stdout.write(line)\nprint('END')",
  frames:
    "from IPython.display import clear_output\nprint('frame 1', flush=True)\nclear_output(wait=True)\nprint('frame 2')",
  progress:
    "import sys, time\nfor i in range(5):\n    sys.stdout.write('\\r' + str(i * 25) + '%')\n    sys.stdout.flush()\n    time.sleep(0.05)\nprint(' done')\nprint('ab\\bc')",
  display:
    "from IPython.display import display\nhandle = display('0%', display_id=True)\nhandle.update('100%')",
  image: [
    'import base64, os, struct, zlib',
    'from IPython.display import display',
    'w, h = 1600, 1200',
    "raw = b''.join(b'\\x00' + os.urandom(w * 3) for _ in range(h))",
    "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)",
    "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b'')",
    "display({'image/png': base64.b64encode(png).decode()}, raw=True)"
  ].join('\n'),
  whoLeft: "import time\nwho = 'left'\ntime.sleep(1)\nprint(who)",
  whoRight: "import time\nwho = 'right'\ntime.sleep(1)\nprint(who)"
} as const;

/** What the fake plays for a program: outputs, streamed with `emit` while it runs. */
export type FakePlay = (
  signal: AbortSignal,
  emit: (output: CellOutput) => void,
  vars: Map<string, number>
) => Promise<CellOutput[]> | CellOutput[];

const out = (text: string): CellOutput => ({
  type: 'stream',
  name: 'stdout',
  text
});

const error = (ename: string, evalue = ''): CellOutput => ({
  type: 'error',
  ename,
  evalue,
  traceback: [`${ename}: ${evalue}`]
});

/** Emit `lines` every `ms` until done or aborted (then a KeyboardInterrupt, as ipykernel). */
async function printEvery(
  lines: string[],
  ms: number,
  signal: AbortSignal,
  emit: (output: CellOutput) => void
): Promise<CellOutput[]> {
  for (const line of lines) {
    if (signal.aborted) {
      return [error('KeyboardInterrupt')];
    }
    emit(out(line));
    await new Promise(resolve => setTimeout(resolve, ms));
  }
  return signal.aborted ? [error('KeyboardInterrupt')] : [];
}

/** The fake's plays, by source. */
export const FAKE_PLAYS: ReadonlyMap<string, FakePlay> = new Map<
  string,
  FakePlay
>([
  [PROGRAMS.answer, () => [out('42\n')]],
  [PROGRAMS.divide, () => [error('ZeroDivisionError', 'division by zero')]],
  [
    PROGRAMS.product,
    () => [
      { type: 'execute_result', data: { 'text/plain': '42' }, metadata: {} }
    ]
  ],
  [PROGRAMS.defineX, (_s, _e, vars) => (vars.set('x', 20), [])],
  [
    PROGRAMS.useX,
    (_s, _e, vars) =>
      vars.has('x')
        ? [out(`${vars.get('x')! * 2 + 2}\n`)]
        : [error('NameError', "name 'x' is not defined")]
  ],
  [
    PROGRAMS.counter,
    (signal, emit) =>
      printEvery(
        Array.from({ length: 100 }, (_, i) => `${i}\n`),
        100,
        signal,
        emit
      )
  ],
  [
    PROGRAMS.sleeper,
    async (signal, emit) => {
      emit(out('sleeping\n'));
      await sleepUnlessAborted(60000, signal);
      return signal.aborted ? [error('KeyboardInterrupt')] : [];
    }
  ],
  [
    PROGRAMS.slowStop,
    async (signal, emit) => {
      emit(out('working\n'));
      await sleepUnlessAborted(60000, signal);
      if (!signal.aborted) {
        return [];
      }
      await sleepMs(1500);
      return [out('cleaned up\n'), error('KeyboardInterrupt')];
    }
  ],
  [
    PROGRAMS.asksInput,
    () => [error('StdinNotImplementedError', 'raw_input was called')]
  ],
  [
    PROGRAMS.image,
    () => [
      {
        type: 'display_data',
        data: { 'image/png': 'iVBORw0KGgo'.padEnd(7_500_000, 'A') },
        metadata: {}
      }
    ]
  ],
  [PROGRAMS.whoLeft, async () => (await sleepMs(1000), [out('left\n')])],
  [PROGRAMS.whoRight, async () => (await sleepMs(1000), [out('right\n')])]
]);

/** Sleep `ms`, or until `signal` aborts. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>(resolve => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function sleepMs(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}
