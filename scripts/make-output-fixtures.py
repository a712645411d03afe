"""Record real notebook outputs from a real ipykernel as golden-test fixtures.

Runs small programs in a fresh ipykernel through jupyter_client, turns the
iopub messages into nbformat output dicts (with nbformat's own
``output_from_msg``, as nbclient does) and writes one JSON file per case to
src/agent/__tests__/fixtures/outputs/. The observation formatter's golden
tests (src/agent/__tests__/observations-golden.test.ts) read them.

Usage (from the repository root; needs ipykernel, pandas, matplotlib, tqdm):

    python scripts/make-output-fixtures.py
    npx prettier --write src/agent/__tests__/fixtures/outputs
    UPDATE_GOLDEN=1 npx jest src/agent/__tests__/observations-golden.test.ts

The 5 MB stream is not stored (it would bloat the repository): its fixture
records the program, the length and the SHA-256 of what the kernel printed,
and the test rebuilds the same text and checks the hash.
"""

from __future__ import annotations

import hashlib
import json
import queue
import sys
from pathlib import Path
from typing import Any

from jupyter_client.manager import start_new_kernel
from nbformat.v4 import output_from_msg

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "src" / "agent" / "__tests__" / "fixtures" / "outputs"
TIMEOUT = 120

# Ten characters per unit, one line per row: 110,000 rows of 48 characters
# make a 5.3 MB print. Mirrored by bigStreamText() in the golden test.
BIG_STREAM_CODE = "print('\\n'.join(f'{i:06d} ' + 'abcdefghij' * 4 for i in range(110_000)))"

SETUP = """
%matplotlib inline
import json
import numpy as np
import pandas as pd
"""

CASES: list[dict[str, Any]] = [
    {
        "name": "traceback-read-csv",
        "description": "pandas.read_csv of a missing file: raised deep inside pandas",
        "code": "df = pd.read_csv('no-such-file.csv')\ndf.head()",
    },
    {
        "name": "traceback-call-chain",
        "description": "user functions over two cells calling json.loads",
        "setup": (
            "def parse(text):\n"
            "    return json.loads(text)\n\n"
            "def load_config(text):\n"
            "    config = parse(text)\n"
            "    return config['name']\n"
        ),
        "code": "name = load_config('{\"name\": oops}')\nprint(name)",
    },
    {
        "name": "tqdm-progress",
        "description": "tqdm progress bar on stderr, rewritten with carriage returns",
        "code": (
            "import time\n"
            "from tqdm import tqdm\n"
            "print('training')\n"
            "for step in tqdm(range(40), desc='epochs', ncols=80, mininterval=0):\n"
            "    time.sleep(0.005)\n"
            "print('done')"
        ),
    },
    {
        "name": "dataframe-1000x5",
        "description": "a 1000 x 5 DataFrame as an execute_result (text/html + text/plain)",
        "code": (
            "rng = np.random.default_rng(0)\n"
            "df = pd.DataFrame(rng.normal(size=(1000, 5)).round(3),\n"
            "                  columns=['price', 'volume', 'open', 'close', 'spread'])\n"
            "df"
        ),
    },
    {
        "name": "matplotlib-png",
        "description": "a matplotlib line plot as an image/png display_data",
        "code": (
            "import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots()\n"
            "ax.plot([1, 3, 2, 4])\n"
            "ax.set_title('demo')\n"
            "plt.show()"
        ),
    },
    {
        "name": "pil-jpeg",
        "description": "a 320 x 200 JPEG shown with IPython.display.Image",
        "code": (
            "import io\n"
            "from PIL import Image as PILImage\n"
            "from IPython.display import Image, display\n"
            "buf = io.BytesIO()\n"
            "PILImage.new('RGB', (320, 200), (30, 120, 200)).save(buf, 'JPEG')\n"
            "display(Image(buf.getvalue()))"
        ),
    },
    {
        "name": "big-stream",
        "description": "print() of a 5 MB string (stored as length + SHA-256)",
        "code": BIG_STREAM_CODE,
        "compact": True,
    },
]


def run(client: Any, code: str) -> list[dict[str, Any]]:
    """Execute `code` and return its outputs as nbformat dicts, in order."""
    msg_id = client.execute(code, allow_stdin=False)
    outputs: list[dict[str, Any]] = []
    while True:
        try:
            msg = client.get_iopub_msg(timeout=TIMEOUT)
        except queue.Empty:
            sys.exit(f"timed out waiting for the kernel on:\n{code}")
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            return outputs
        if kind not in ("stream", "error", "execute_result", "display_data"):
            continue
        output = output_from_msg(msg)
        # Coalesce consecutive writes to one stream as the notebook model
        # does; the carriage returns inside are kept as the kernel sent them.
        last = outputs[-1] if outputs else None
        if kind == "stream" and last is not None and last["output_type"] == "stream" and last["name"] == output["name"]:
            last["text"] += output["text"]
        else:
            outputs.append(dict(output))


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        setup_outputs = run(client, SETUP)
        if any(o["output_type"] == "error" for o in setup_outputs):
            sys.exit(f"setup failed: {setup_outputs}")
        for case in CASES:
            if "setup" in case:
                run(client, case["setup"])
            outputs = run(client, case["code"])
            record: dict[str, Any] = {
                "description": case["description"],
                "code": case["code"],
            }
            if case.get("compact"):
                (stream,) = outputs
                text = stream["text"]
                record["compact"] = {
                    "output_type": "stream",
                    "name": stream["name"],
                    "length": len(text),
                    "sha256": hashlib.sha256(text.encode()).hexdigest(),
                }
            else:
                record["outputs"] = outputs
            path = OUT_DIR / f"{case['name']}.json"
            path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
