"""``council ask`` stopped by a signal to its whole process group (``kill -TERM -PGID``, a closed terminal's SIGHUP)
mid-session: a clean cancel like Ctrl-C — exit 130, the cancel line, no traceback, no sidecar left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from .conftest import COUNCIL, PROBLEM, processes_with


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_the_process_group_mid_debate_cancels_cleanly(script_file, sig: signal.Signals):
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "delay": 1.0}]})
    proc = subprocess.Popen([*COUNCIL, "ask", "--provider", "scripted", "--no-embeddings", "--script", script,
                             "--yes", PROBLEM], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"}, start_new_session=True)
    try:
        seen: list[str] = []
        assert proc.stdout is not None
        for line in proc.stdout:  # the debate has begun: the sidecar is mid-session, a model call pending
            seen.append(line)
            if "Cycle 1" in line:
                break
        else:
            raise AssertionError("the debate never began:\n" + "".join(seen))
        assert any("serve" in open(f"/proc/{pid}/cmdline").read() for pid in processes_with(script)), \
            "the sidecar should be running with the script on its command line"
        os.killpg(proc.pid, sig)  # the process group: council ask and its sidecar, as a shell's kill or hang-up
        started = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip() == "cancelled", err
    assert "Traceback" not in out + err and "The council's answer" not in out
    assert took < 10, took
    deadline = time.monotonic() + 5
    while processes_with(script) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(script) == []  # the sidecar was shut down, not orphaned
