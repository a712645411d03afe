"""Two Jupyter servers sharing a data folder save keys at the same moment: both keys stay.

Each save reads keys.json, changes one key and writes it back; without a lock across
processes, the second writer's read missed the first one's key, which was lost (12 of 40
rounds in the review). Two processes here save different keys at once, round after round.
"""

from __future__ import annotations

import multiprocessing
import stat

from jupyterlab_notebook_agent.key_store import KeyStore

ROUNDS = 20


def _saver(path: str, name: str, barrier, rounds: int) -> None:
    store = KeyStore(path)
    for n in range(rounds):
        barrier.wait(timeout=30)  # both start their save of this round together
        store.set(f"{name}-{n}", f"sk-{name}-{n}-0123456789abcdef")


def _run_two(path: str, rounds: int, work) -> None:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    savers = [context.Process(target=work, args=(path, name, barrier, rounds)) for name in ("alpha", "beta")]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join(timeout=60)
        assert saver.exitcode == 0, f"a saver failed ({saver.exitcode})"


def test_two_processes_saving_at_once_lose_no_key(tmp_path):
    path = str(tmp_path / "notebook_agent" / "keys.json")
    _run_two(path, ROUNDS, _saver)
    store = KeyStore(path)
    lost = [f"{name}-{n}" for n in range(ROUNDS) for name in ("alpha", "beta") if not store.has(f"{name}-{n}")]
    assert lost == [], f"{len(lost)} of {2 * ROUNDS} keys lost: {lost}"
    assert store.get("beta-7") == "sk-beta-7-0123456789abcdef"
    # The lock file lives beside keys.json, readable by the user only; no temporary file is left.
    lock = tmp_path / "notebook_agent" / ".keys.json.lock"
    assert lock.exists() and stat.S_IMODE(lock.stat().st_mode) == 0o600
    assert sorted(p.name for p in lock.parent.iterdir()) == [".keys.json.lock", "keys.json"]


def _deleter(path: str, name: str, barrier, rounds: int) -> None:
    store = KeyStore(path)
    for n in range(rounds):
        barrier.wait(timeout=30)
        if name == "alpha":
            store.delete(f"old-{n}")
        else:
            store.set(f"new-{n}", "sk-new-0123456789abcdef")


def test_a_removal_and_a_save_at_once_both_take_effect(tmp_path):
    path = str(tmp_path / "keys.json")
    store = KeyStore(path)
    for n in range(ROUNDS):
        store.set(f"old-{n}", "sk-old-0123456789abcdef")
    _run_two(path, ROUNDS, _deleter)
    back = [f"old-{n}" for n in range(ROUNDS) if store.has(f"old-{n}")]
    lost = [f"new-{n}" for n in range(ROUNDS) if not store.has(f"new-{n}")]
    assert (back, lost) == ([], []), f"removed keys back: {back}; saved keys lost: {lost}"
