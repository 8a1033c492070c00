"""Terminal rendering of markdown and of the event stream (no subprocess)."""

from __future__ import annotations

import io
import re

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
    """On a terminal ``answer.delta`` is written as it comes; ``final_markdown`` is what is left to print (issue
    24). Quiet, or where nothing printed can be taken back (a pipe), the stream is not printed: the whole answer
    is kept."""
    head = ["## The council's answer\n\nSplit ", "billing first.\n\n"]
    rest = "**Vote:** unanimous for **A**.\n"
    for quiet, live in ((False, True), (True, True), (False, False)):
        out = io.StringIO()
        printer = EventPrinter(out, PLAIN, quiet=quiet, live=live)
        for piece in head:
            printer(event("answer.delta", markdown=piece, text="…"))
        shown = live and not quiet
        assert out.getvalue() == ("The council's answer\n\nSplit billing first.\n\n" if shown else "")
        printer(event("final.answer", markdown=rest))
        assert printer.final_markdown == (rest if shown else "".join(head) + rest)
        assert printer.final_continues is shown


CSI = re.compile(r"\x1b\[(\d*)([A-Za-z])")


def screen(output: str, columns: int = 80) -> str:
    """What a terminal ``columns`` wide shows after ``output``: lines wrap; ``\\r``, ``ESC[nF`` (to the start of the
    line n up) and ``ESC[J`` (clear to the end of the screen) act; colours are dropped."""
    rows, row, col = [""], 0, 0
    pos = 0
    while pos < len(output):
        m = CSI.match(output, pos)
        if m:
            pos = m.end()
            if m.group(2) == "F":
                row, col = max(0, row - int(m.group(1) or 1)), 0
            elif m.group(2) == "J":
                rows[row] = rows[row][:col]
                del rows[row + 1:]
            continue
        c, pos = output[pos], pos + 1
        if c == "\r":
            col = 0
        elif c == "\n":
            row, col = row + 1, 0
        else:
            if col == columns:
                row, col = row + 1, 0
            while len(rows) <= row:
                rows.append("")
            rows[row] = rows[row][:col].ljust(col) + c + rows[row][col + 1:]
            col += 1
        while len(rows) <= row:
            rows.append("")
    return "\n".join(rows)


def test_a_withdrawn_draft_is_taken_back_from_the_terminal_and_the_answer_stands_alone(monkeypatch):
    """Issue 31: ``council ask`` showed "The council's answer" twice with two recommendations — the chair's streamed
    draft, which then failed, and the answer consolidated from the advisors. On a terminal the draft is cleared
    (wrapped lines too) and what printed meanwhile (a warning) stays; elsewhere it never printed."""
    draft = ["## The council's answer\n\n", "Rewrite the billing service in Rust " * 5, "right now.\n\n"]
    final = "## The council's answer\n\nKeep the service and measure first.\n\n**Vote:** a majority for **A**.\n"
    monkeypatch.setenv("COLUMNS", "80")  # the terminal's width, as the screen below has it
    for live in (True, False):
        out = io.StringIO()
        printer = EventPrinter(out, PLAIN, live=live)
        printer(event("progress", message="The chair writes the answer…"))
        printer(event("answer.delta", markdown=draft[0], text=""))
        printer(event("answer.delta", markdown=draft[1], text="Rewrite"))
        printer(event("error", code="internal", message="The chair's model failed: malformed"))
        printer(event("answer.delta", markdown=draft[2], text="Rewrite … now."))
        printer(event("answer.withdrawn", markdown="\n\n_The chair's draft above …_\n\n", text="Rewrite"))
        printer(event("final.answer", markdown=final))
        assert printer.final_markdown == final and not printer.final_continues
        shown = screen(out.getvalue() + markdown(printer.final_markdown, PLAIN))
        assert shown.count("The council's answer") == 1 and "Rust" not in shown and "draft" not in shown, shown
        assert shown.index("writes the answer") < shown.index("! The chair's model failed") < shown.index("Keep")
        assert ("\x1b[J" in out.getvalue()) is live  # only a terminal is asked to take anything back
