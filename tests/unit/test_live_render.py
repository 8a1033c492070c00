"""Live rendering of streamed persona JSON: append-only markdown equal to rendering the reply at once."""

from __future__ import annotations

import json

from council.present.live_render import LiveRenderer, render
from council.session.calls.parsing import parse_prefix

REPLY = {
    "position": "Migrate the billing module first, behind a feature flag.",
    "summary": ["Billing is the riskiest part.", "The team knows it well."],
    "advice": ["Start with read paths.", 'Quote: "measure twice"', "Back\\slash and tab\there"],
    "risks": ["Data drift between old and new."],
    "assumptions": ["Two engineers are free."],
    "next_steps": ["Write the flag.", "Shadow traffic for a week."],
    "confidence": "medium",
    "confidence_rationale": "done it twice",
    "continue_debate": True,
}


def at_once(obj: dict) -> str:
    return render(obj, set(obj), final=True)


def stream(text: str, size: int, final: dict) -> tuple[str, list[str]]:
    """Feed ``text`` in chunks of ``size``; return everything emitted and the running totals."""
    lr = LiveRenderer()
    out, totals = "", []
    for i in range(0, len(text), size):
        out += lr.feed(text[i : i + size])
        totals.append(out)
    out += lr.finish(final)
    totals.append(out)
    return out, totals


def check_every_chunk_size(obj: dict, text: str | None = None) -> None:
    text = text if text is not None else json.dumps(obj)
    want = at_once(obj)
    for size in range(1, 41):
        got, totals = stream(text, size, obj)
        assert got == want, f"chunk size {size}"
        for partial in totals:  # never emits text that is later contradicted
            assert want.startswith(partial), f"chunk size {size}: {partial!r}"


def test_whole_render_shape():
    md = at_once(REPLY)
    assert md.startswith("Migrate the billing module first, behind a feature flag.\n\n**Summary**\n- Billing")
    assert md.index("**Advice**") < md.index("**Risks**") < md.index("**Next steps**")
    assert '- Quote: "measure twice"\n' in md
    assert "Two engineers" not in md  # assumptions are not rendered live
    assert md.endswith("- Shadow traffic for a week.\n\n")


def test_every_chunk_size_matches_at_once():
    check_every_chunk_size(REPLY)


def test_pretty_printed_json_in_prose():
    text = "Here you go:\n```json\n" + json.dumps(REPLY, indent=2) + "\n```"
    check_every_chunk_size(REPLY, text)


def test_unicode_escapes_and_newlines():
    obj = dict(REPLY, position="Caf\u00e9 first —\nthen the rest.", summary=["naïve\nplan", "ok"])
    check_every_chunk_size(obj)  # ensure_ascii escapes as \\u00e9, \\u2014
    check_every_chunk_size(obj, json.dumps(obj, ensure_ascii=False))


def test_escaped_quotes_in_position():
    check_every_chunk_size(dict(REPLY, position='Say "no" to \\ big-bang rewrites.'))


def test_missing_list_fields_are_skipped_at_the_end():
    obj = {"position": "Only a position.", "advice": ["One thing."], "confidence": "low"}
    check_every_chunk_size(obj)
    assert at_once(obj) == "Only a position.\n\n**Advice**\n- One thing.\n\n"


def test_holds_back_unfinished_list_item():
    lr = LiveRenderer()
    out = lr.feed('{"position": "P.", "summary": ["first", "sec')
    assert out == "P.\n\n**Summary**\n- first\n"
    assert lr.feed('ond"') == ""  # the list is not closed: the last item may still be followed by more text
    assert lr.feed("]") == "- second\n\n"


def test_partial_position_streams_live():
    lr = LiveRenderer()
    assert lr.feed('{"position": "  Migrate') == "Migrate"
    assert lr.feed(" billing") == " billing"
    assert lr.feed('", ') == "\n\n"


def test_prose_before_json_emits_nothing():
    assert LiveRenderer().feed("Let me think about this...") == ""


class TestParsePrefix:
    def test_complete_and_incomplete_keys(self):
        obj, done = parse_prefix('{"a": "x", "b": [1, 2], "c": tr')
        assert obj == {"a": "x", "b": [1, 2], "c": None}
        assert done == {"a", "b"}

    def test_escapes(self):
        obj, done = parse_prefix(r'{"a": "q\"\\\/\n\t\u00e9"}')
        assert obj["a"] == 'q"\\/\n\té' and "a" in done

    def test_partial_unicode_escape_waits(self):
        obj, done = parse_prefix(r'{"a": "x\u00')
        assert obj == {"a": "x"} and not done

    def test_no_object(self):
        assert parse_prefix("nothing here") == ({}, set())

    def test_literals(self):
        obj, done = parse_prefix('{"n": 3, "t": true, "z": null}')
        assert obj == {"n": 3, "t": True, "z": None} and done == {"n", "t", "z"}


def test_trailing_space_in_position():
    check_every_chunk_size(dict(REPLY, position="Migrate billing first. "))


def test_surrogate_pair_escape():
    check_every_chunk_size(dict(REPLY, position="Ship it \U0001f600 now."))


def test_carriage_return_escape():
    check_every_chunk_size(dict(REPLY, summary=["line one\r\nline two", "ok"]))
