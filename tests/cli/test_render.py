"""Terminal rendering of markdown and of the event stream (no subprocess)."""

from __future__ import annotations

import io

from council.cli.render import EventPrinter, StreamFormatter, Style, markdown

PLAIN = Style(False)


def test_markdown_headings_bullets_numbers_and_inline():
    md = "## The council's answer\n\nDo **this** and `that`.\n\n### Next steps\n1. One\n2. Two\n- a _note_\n"
    out = markdown(md, PLAIN)
    assert out.splitlines() == ["The council's answer", "", "Do this and that.", "", "Next steps",
                                "  1. One", "  2. Two", "  • a note"]
    colored = markdown(md, Style(True))
    assert "\x1b[1;34mThe council's answer\x1b[0m" in colored and "\x1b[1mthis\x1b[0m" in colored


def test_style_honours_no_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert Style.for_stream(Tty()).enabled
    assert not Style.for_stream(io.StringIO()).enabled
    monkeypatch.setenv("NO_COLOR", "1")
    assert not Style.for_stream(Tty()).enabled


def test_stream_formatter_handles_markers_split_across_chunks():
    f = StreamFormatter(PLAIN)
    chunks = ["Pos.\n\n*", "*Summ", "ary**\n", "-", " one\n- tw", "o\nnot-a-bullet"]
    assert "".join(f.feed(c) for c in chunks) + f.close() == "Pos.\n\nSummary\n  • one\n  • two\nnot-a-bullet"


def event(kind: str, **fields):
    return {"type": kind, "sessionId": "s", "seq": 1, "at": "now", **fields}


def test_status_lines_wait_until_a_persona_stream_ends():
    buf = io.StringIO()
    p = EventPrinter(buf, PLAIN)
    p(event("persona.delta", persona="A", cycle=1, markdown="- **A** — first half "))
    p(event("progress", message="meanwhile"))
    p(event("persona.delta", persona="A", cycle=1, markdown="second half"))
    p(event("persona.completed", persona="A", cycle=1, markdown=" · high confidence\n\n"))  # ends the line
    p(event("debate.limitReached", markdown="> ⏱️ The debate reached its limit.\n\n"))
    p(event("unknown.type", markdown="**New** kind of event\n"))
    p(event("unknown.silent"))
    assert buf.getvalue() == ("  • A — first half second half · high confidence\n\n· meanwhile\n"
                              "│ ⏱️ The debate reached its limit.\n\nNew kind of event\n\n")


def test_the_final_answer_is_kept_for_stdout():
    buf = io.StringIO()
    p = EventPrinter(buf, PLAIN)
    p(event("final.answer", markdown="## The council's answer\n\nDo it.\n"))
    assert buf.getvalue() == "" and p.final_markdown.startswith("## The council's answer")


def test_stream_formatter_styles_headings():
    f = StreamFormatter(Style(True))
    out = "".join(f.feed(c) for c in ["#", "### Senior Developer\n", "\nText"]) + f.close()
    assert out == "\x1b[1;34mSenior Developer\x1b[0m\n\nText"
    plain = StreamFormatter(PLAIN)
    assert plain.feed("#### A\n") + plain.close() == "A\n"


def test_quiet_keeps_warnings_only():
    buf = io.StringIO()
    p = EventPrinter(buf, PLAIN, quiet=True)
    p(event("progress", message="hidden"))
    p(event("persona.delta", persona="A", cycle=1, markdown="hidden"))
    p(event("error", code="internal", message="A: the model failed"))
    assert buf.getvalue() == "! A: the model failed\n"


def test_the_answer_prints_as_it_streams_and_only_its_rest_is_kept_for_the_end():
    """``answer.delta`` is written as it comes; ``final_markdown`` is what is left to print (issue 24). Quiet, the
    stream is not printed, so the whole answer is kept."""
    head = ["## The council's answer\n\nSplit ", "billing first.\n\n"]
    rest = "**Vote:** unanimous for **A**.\n"
    for quiet in (False, True):
        out = io.StringIO()
        printer = EventPrinter(out, PLAIN, quiet=quiet)
        for piece in head:
            printer(event("answer.delta", markdown=piece, text="…"))
        assert out.getvalue() == ("" if quiet else "The council's answer\n\nSplit billing first.\n\n")
        printer(event("final.answer", markdown=rest))
        assert printer.final_markdown == ("".join(head) + rest if quiet else rest)
        assert printer.final_continues is not quiet
