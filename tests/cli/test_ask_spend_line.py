"""``council ask`` on a terminal says under the answer what it spent against what it said (issue 31: the cost line's
after-half, which the chat, the transcript and ``--json`` had and the text output did not): the calls made, the
expected and worst case it stated before, and the cancelled calls named as cancelled."""

from __future__ import annotations

import json
import re

from .conftest import PROBLEM, run_council

FAST = ("--provider", "scripted", "--no-embeddings", "--yes")
SPENT = re.compile(r"^Model calls: (\d+) \(it said about (\d+)(?:–(\d+))? model calls, at most (\d+)\)(.*)$", re.M)


def test_the_text_output_ends_with_the_calls_made_against_what_it_said():
    r = run_council("ask", *FAST, "--max-cycles", "2", PROBLEM)
    assert r.returncode == 0, r.stderr
    before = re.search(r"💰 About (\d+)(?:–(\d+))? model calls expected.*; at most (\d+) model calls", r.stdout)
    assert before is not None, r.stdout[:800]
    found = SPENT.findall(r.stdout)
    assert len(found) == 1, r.stdout[-800:]
    calls, low, high, most, rest = found[0]
    assert (high or low) == (before.group(2) or before.group(1))  # the same expected range
    assert (low, most) == (before.group(1), before.group(3)) and int(calls) <= int(most)
    assert r.stdout.rstrip().endswith(found[0][4].strip() or ")")  # the last line, under the answer
    assert r.stdout.index("The council's answer") < r.stdout.index("Model calls:")
    if "cancelled" in rest:  # cycle 2 started beside the options call (scripted models are free): sent, then cancelled
        assert re.search(r"\d+ cancelled \(sent, then not needed\)", rest), rest
    snap = json.loads(run_council("ask", *FAST, "--json", "--max-cycles", "2", PROBLEM).stdout)
    assert snap["session"]["metadata"]["calls"] == int(calls)  # the same session, the same count
