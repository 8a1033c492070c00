"""The tools as a server started one way or another offers them (no subprocess): what each may write decides its
annotations and the words of its description; and the progress line of a persona that could not answer."""

from __future__ import annotations

import pytest

from council.mcpserver.tools import TOOLS, offered
from council.present.consult import stage


def by_name(**started: bool):
    return {spec.name: spec for spec in offered(**started)}


def test_a_server_that_keeps_nothing_offers_read_only_consults_and_no_memory_tool():
    tools = by_name(memory=False, transcripts=False, workspace=True)
    assert list(tools) == [t.name for t in TOOLS]
    assert tools["council_consult"].read_only and tools["persona_consult"].read_only
    assert tools["council_consult"].description == TOOLS[0].description
    define = tools["council_define_personas"]
    assert not define.read_only and define.destructive and define.idempotent


@pytest.mark.parametrize("memory, transcripts, says", [
    (True, False, "decision memory"), (False, True, "transcript folder"), (True, True, "transcript folder")])
def test_a_server_that_keeps_consults_says_so_and_is_not_read_only(memory, transcripts, says):
    tools = by_name(memory=memory, transcripts=transcripts, workspace=True)
    assert ("council_decisions" in tools) is memory
    for name in ("council_consult", "persona_consult"):
        assert not tools[name].read_only and not tools[name].destructive
        assert "A completed consult is remembered" in tools[name].description and says in tools[name].description
    assert tools["council_review"].read_only
    if memory:
        assert tools["council_decisions"].read_only and tools["council_decisions"].idempotent


def test_without_a_workspace_define_personas_only_lists_and_is_read_only():
    define = by_name(memory=False, transcripts=False, workspace=False)["council_define_personas"]
    assert define.read_only and not define.destructive
    assert define.description.endswith("This server has no workspace: it lists the personas but cannot override them.")


def completed(response: dict) -> dict:
    return {"type": "persona.completed", "persona": "Security Expert", "cycle": 2, "response": response}


@pytest.mark.parametrize("response, line", [
    ({"abstained": False}, "Security Expert answered (cycle 2)."),
    ({"abstained": True, "failure": {"kind": "rate_limited", "provider": "client", "status": 429}},
     "Security Expert could not answer (cycle 2): your chat model is rate limiting requests (HTTP 429)."),
    ({"abstained": True, "failure": {"kind": "timeout", "provider": "anthropic", "host": "api.anthropic.com"}},
     "Security Expert could not answer (cycle 2): api.anthropic.com did not answer in time."),
    ({"abstained": True, "note": "Security Expert abstains: unusable reply after one repair attempt: not JSON"},
     "Security Expert could not answer (cycle 2): the model's output was malformed."),
])
def test_the_progress_line_of_a_persona_says_whether_it_answered(response, line):
    assert stage(completed(response)) == line
