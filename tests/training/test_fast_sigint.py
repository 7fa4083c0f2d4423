"""SIGINT and the fast trainer: whatever the moment, and whether it reaches the main
process alone (``kill -INT``, as a job manager sends it) or the whole process group (a
terminal's Ctrl-C), the run ends with one line, exit code 130 and its last checkpoint
intact; no process it started prints a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.sigint import children_ignore_sigint  # noqa: E402

# Runs the trainer's command line with SIGINT sent from inside at one chosen moment: the
# n-th entry of a method (so the moment does not depend on the machine's speed).
DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from shipwreck_training.fast import collector, ppo, run

    def at(owner, name, call, target):
        original, calls = getattr(owner, name), [0]
        def wrapper(*args, **kwargs):
            calls[0] += 1
            if calls[0] == call:
                if target == "group":
                    os.killpg(0, signal.SIGINT)
                else:
                    os.kill(os.getpid(), signal.SIGINT)
            return original(*args, **kwargs)
        setattr(owner, name, wrapper)

    if __name__ == "__main__":
        owner, name, call, target = sys.argv[1:5]
        owner = {"Trainer": ppo.Trainer, "CollectorProcess": collector.CollectorProcess}[owner]
        at(owner, name, int(call), target)
        sys.exit(run.main(sys.argv[5:]))
    """
)

MOMENTS = {
    # the trainer is being set up (games, network, partners), nothing started yet
    "setting_up": ("Trainer", "__init__", 1),
    # the collector process just started, fetching its shared memory from this one
    "collector_starting": ("CollectorProcess", "_answer", 1),
    # this process waits for a rollout the collector is collecting
    "collecting": ("CollectorProcess", "result", 3),
    # this process learns while the collector collects the next rollout
    "updating": ("Trainer", "update", 3),
}


def _run(tmp_path: Path, moment: str, target: str) -> tuple[int, str, Path]:
    data = {
        "name": "test",
        "num_games": 32,
        "rollout_steps": 8,
        "total_steps": 10_000_000,
        "checkpoint_every": 256,
        "torch_threads": 1,
        "overlap": "process",
        "env": {"belief": "policy"},
        "ppo": {"minibatch_size": 64, "hidden": [32, 32], "epochs": 2},
        "eval": {"every": 0, "games": 4},
    }
    import yaml

    (tmp_path / "run.yaml").write_text(yaml.safe_dump(from_dict(data).to_dict()))
    (tmp_path / "driver.py").write_text(DRIVER)
    runs = tmp_path / "runs"
    flags = ["--config", "run.yaml", "--runs", str(runs)]
    job = subprocess.run(
        [sys.executable, "driver.py", *map(str, MOMENTS[moment]), target, *flags],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        # its own process group (killpg(0) must not reach pytest), SIGINT as a
        # terminal leaves it whatever this process inherited
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        timeout=600,  # a hang guard, not a speed check
    )
    (run,) = runs.iterdir()
    return job.returncode, job.stderr, run


@pytest.mark.slow  # one trainer start per case: about a minute each on a loaded machine
@pytest.mark.parametrize("target", ["main", "group"])
@pytest.mark.parametrize("moment", sorted(MOMENTS))
def test_sigint_at_any_moment_prints_one_line_and_exits_130(tmp_path, moment, target):
    code, err, run = _run(tmp_path, moment, target)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted at "), err
    latest = run / "checkpoints" / "latest.pt"
    if moment in ("setting_up", "collector_starting"):
        assert last.endswith(f"before the first checkpoint: nothing to resume in {run}")
        assert not latest.exists()
    else:
        assert last.endswith(f"--resume {run}") and f"last checkpoint {latest}" in last
        state = torch.load(latest, weights_only=False)
        assert state["global_step"] >= 256 and f"({state['global_step']:,} steps)" in last


HELD = textwrap.dedent(
    """
    import os, signal, time
    from shipwreck_training.fast.sigint import children_ignore_sigint

    # Python's own handler, as in a terminal: a job a shell started in the background
    # inherits SIGINT ignored, and then the held interrupt is rightly ignored too
    signal.signal(signal.SIGINT, signal.default_int_handler)
    reached, raised = [], 0
    try:
        with children_ignore_sigint():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between bytecodes: give it many
                reached.append(1)
        for _ in range(500):  # a signal another thread took may land a little late
            time.sleep(0.01)
    except KeyboardInterrupt:
        raised += 1
    try:
        for _ in range(50):  # and never twice
            time.sleep(0.01)
    except KeyboardInterrupt:
        raised += 1
    print(raised, len(reached), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    """
)


def test_a_sigint_inside_the_block_is_held_and_raised_once_at_its_end():
    """In a process of its own. SIGINT is blocked in the block's thread only: a
    process-directed SIGINT may be taken by another thread (a library's pool thread) and
    reach Python's handler a moment later, under load even after the block, so the check
    waits for it; what must hold is that the block is not cut short and the interrupt
    comes exactly once, never lost. (It failed once more in a suite started with ``&``
    from a script: the process began with SIGINT ignored, so the block restored "ignore"
    and the held signal was ignored, as it should be; the check now starts from Python's
    default handler.)"""
    assert _printed_alone(HELD) == ["1", "1000", "True"]


def test_a_process_started_inside_the_block_starts_with_sigint_blocked():
    show = "print([l for l in open('/proc/self/status') if l.startswith('SigBlk')][0])"
    with children_ignore_sigint():
        line = subprocess.run(
            [sys.executable, "-c", show], capture_output=True, text=True, check=True
        ).stdout
    blocked = int(line.split()[1], 16)
    assert blocked & (1 << (signal.SIGINT - 1)), line


HALF_A_MESSAGE = textwrap.dedent(
    """
    import os, pickle, signal, struct, threading, time
    from multiprocessing import Pipe
    from shipwreck_training.fast.collector import _receive, _send

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    here, there = Pipe()
    raw = pickle.dumps({"state": os.urandom(3_000_000)}, protocol=pickle.HIGHEST_PROTOCOL)
    raw = struct.pack("!i", len(raw)) + raw  # a message as _send frames it
    main = threading.main_thread().ident

    def write(data):
        view = memoryview(data)
        while view:
            view = view[os.write(there.fileno(), view):]

    def sender():
        write(raw[: len(raw) // 2])
        time.sleep(0.3)  # the reader waits inside the message for its second half
        signal.pthread_kill(main, signal.SIGINT)
        time.sleep(0.3)
        write(raw[len(raw) // 2 :])
        _send(there, "next")
        there.close()

    thread = threading.Thread(target=sender)
    thread.start()
    try:
        _receive(here)
        first = "read"
    except KeyboardInterrupt:
        first = "interrupted"
    try:
        second = _receive(here)
    except Exception as error:  # a read out of step: a garbage length, then the end
        second = type(error).__name__
    thread.join()
    print(first, second)
    """
)


def test_a_sigint_in_the_middle_of_a_message_leaves_the_pipe_in_step():
    """The collector's messages are read whole: a Ctrl-C while half of one has arrived
    is raised after it, and the next message reads as sent. (Cut in half, the next read
    took the middle of the megabytes of collection state for a length and waited forever:
    a fresh clone's CI hung 300 s after Ctrl-C with the collector waiting for a command.)"""
    assert _printed_alone(HALF_A_MESSAGE) == ["interrupted", "next"]


def _printed_alone(code: str) -> list[str]:
    """The words ``code`` prints, run in a Python process of its own."""
    run = [sys.executable, "-c", code]
    return subprocess.run(
        run, capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
