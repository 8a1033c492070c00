"""OrderedStream: concurrent personas, one reader — deltas grouped per persona in order, commits in order."""

from __future__ import annotations

import itertools

import pytest

from council.session.steps.debate import OrderedStream


class FakeRuntime:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def persona_text(self, persona, cycle, chunk) -> None:
        self.calls.append(("text", {"persona": persona, "cycle": cycle, "markdown": chunk}))


def make(order=("A", "B", "C")):
    rt = FakeRuntime()
    log: list[str] = []
    stream = OrderedStream(rt, list(order), cycle=2)  # type: ignore[arg-type]

    def deltas():
        return [(f["persona"], f["markdown"]) for kind, f in rt.calls if kind == "text"]

    def commit(name):
        return lambda: log.append(f"commit {name}")

    return rt, stream, log, deltas, commit


def test_head_streams_live_others_buffer():
    rt, s, log, deltas, commit = make()
    s.delta("B", "b1")
    s.delta("A", "a1")
    s.delta("C", "c1")
    s.delta("B", "b2")
    assert deltas() == [("A", "a1")]
    s.finish("A", commit("A"))
    assert deltas() == [("A", "a1"), ("B", "b1b2")]
    assert log == ["commit A"]
    s.delta("B", "b3")  # B is now at the head: live
    assert deltas()[-1] == ("B", "b3")
    assert all(f["cycle"] == 2 for _, f in rt.calls)


def test_finish_out_of_order_commits_in_order():
    _, s, log, deltas, commit = make()
    s.delta("C", "c")
    s.finish("C", commit("C"))
    s.delta("B", "b")
    s.finish("B", commit("B"))
    assert log == [] and deltas() == []
    s.delta("A", "a")
    s.finish("A", commit("A"))
    assert log == ["commit A", "commit B", "commit C"]
    assert deltas() == [("A", "a"), ("B", "b"), ("C", "c")]
    assert s.head == 3


def test_empty_deltas_ignored():
    _, s, _, deltas, _ = make()
    s.delta("A", "")
    s.delta("B", "")
    assert deltas() == []
    assert s.buffers["B"] == []


def test_commit_runs_before_next_persona_text():
    rt, s, log, _, _ = make(("A", "B"))
    s.delta("B", "b")
    s.finish("A", lambda: log.append(f"commit A after {len(rt.calls)} events"))
    assert log == ["commit A after 0 events"]
    assert rt.calls[-1][1]["markdown"] == "b"


EVENTS = [
    ("delta", "A", "a1"),
    ("delta", "B", "b1"),
    ("delta", "C", "c1"),
    ("delta", "A", "a2"),
    ("delta", "B", "b2"),
    ("finish", "A", ""),
    ("finish", "B", ""),
    ("finish", "C", ""),
]


def _valid(perm) -> bool:
    """Each persona's deltas precede its finish, and its own deltas keep their order."""
    pos = {e: i for i, e in enumerate(perm)}
    for name in "ABC":
        own = [e for e in EVENTS if e[1] == name]
        if [pos[e] for e in own] != sorted(pos[e] for e in own):
            return False
    return True


PERMS = [p for p in itertools.permutations(EVENTS) if _valid(p)]


@pytest.mark.parametrize("perm", PERMS[:: max(1, len(PERMS) // 60)])
def test_any_timing_gives_the_same_reading(perm):
    _, s, log, deltas, commit = make()
    for kind, name, text in perm:
        if kind == "delta":
            s.delta(name, text)
        else:
            s.finish(name, commit(name))
    assert log == ["commit A", "commit B", "commit C"]
    text_by = "".join(t for _, t in deltas())
    assert text_by == "a1a2b1b2c1"
    names = [n for n, _ in deltas()]
    assert names == sorted(names)  # grouped per persona, in the given order


# --- raw chunks: rendered live at the head, in one go elsewhere -------------------------------------------------
REPLY = ('{"position": "Split billing first.", "summary": ["one", "two"], "advice": ["a \\"quoted\\" one", "b"], '
         '"risks": ["r"], "next_steps": ["s1", "s2"], "confidence": "high"}')


def renderer_output(chunks: list[str]) -> str:
    from council.present.live_render import LiveRenderer

    lr = LiveRenderer()
    return "".join(lr.feed(c) for c in chunks)


@pytest.mark.parametrize("size", [1, 4, 24, 1000])
def test_buffered_raw_chunks_are_passed_on_in_one_go_and_render_the_same(size):
    """A persona behind the head is not rendered chunk by chunk: its raw text reaches the observer (which renders)
    as one piece when it is shown, and renders to the same markdown as the live stream of the head."""
    chunks = [REPLY[i:i + size] for i in range(0, len(REPLY), size)]
    _, s, _, deltas, commit = make(("A", "B"))
    for c in chunks:
        s.delta("A", c)
        s.delta("B", c)
    assert {who for who, _ in deltas()} == {"A"}  # B waits
    s.finish("A", commit("A"))
    b_pieces = [m for who, m in deltas() if who == "B"]
    assert b_pieces == [REPLY]
    a_text = renderer_output([m for who, m in deltas() if who == "A"])
    assert a_text == renderer_output(b_pieces) == renderer_output(chunks)
