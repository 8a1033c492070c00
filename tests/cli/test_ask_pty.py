"""``council ask`` on a real pseudo-terminal, as a person would use it: answer, skip, Ctrl-C."""

from __future__ import annotations

from tests.headless.conftest import FLIP_FLOP_COUNCIL, flip_flop_script

from .conftest import PROBLEM, processes_with
from .test_ask import CUT_OFF_CHAIR, DRAFT
from .test_render import screen


def test_answer_by_number_then_skip_then_the_answer(pty_session):
    s = pty_session("ask", "--provider", "scripted", "--no-embeddings", "--max-cycles", "2", PROBLEM)
    s.expect(r"The council uses scripted \(the scripted test model\)\.")
    s.expect(r"What is the main goal behind this request")
    s.expect(r"1\. Cut costs — favours Wait\s+2\. Ship faster — favours Split now\s+3\. Reduce risk — favours Staged")
    s.expect(r"> ")
    s.send("2\r")
    s.expect(r"What timeline are you working with")
    s.expect(r"> ")
    s.send("skip\r")
    s.expect(r"Assumed: The timeline is this quarter\.")
    for persona in ("Software Architect", "Senior Developer", "Devil's Advocate"):  # one compact line each
        s.expect(rf"{persona}\S* — \S*{persona} recommends a staged approach \(cycle 1\)\. · medium confidence")
    s.expect(r"The council's answer")
    s.expect(r"Vote:\S* a majority for \S*A · Staged approach")
    # issue 31: what the user answered stands in the answer beside what the council assumed, and the answer says
    # what it hinges on (the goal's other likely answer, "Cut costs", favours B)
    s.expect(r"What the answer hinges on\S*\s+1\. You answered “What is the main goal behind this request "
             r"\(round 1\)\?”: \S*Ship faster\S*\. If instead \S*Cut costs\S*, the council would lean to \S*B · Wait")
    s.expect(r"What you told the council\S*\s+• What is the main goal behind this request \(round 1\)\? → "
             r"\S*Ship faster")
    s.expect(r"Assumptions the council made\S*\s+• The timeline is this quarter\.")
    s.send("\r")  # finishes if the council offers more cycles; harmless otherwise
    assert s.wait() == 0
    assert "Assumed: The main goal" not in s.text  # question 1 was answered, not assumed
    assert "\x1b[" in s.output  # colors on a tty (NO_COLOR unset)
    assert "Traceback" not in s.text


def test_no_color_on_a_tty_when_NO_COLOR_is_set(pty_session):
    s = pty_session("ask", "--provider", "scripted", "--no-embeddings", "--yes", "--max-cycles", "1", PROBLEM,
                    env={"NO_COLOR": "1"})
    s.expect(r"The council's answer")
    assert s.wait() == 0
    assert "\x1b[" not in s.output


def test_free_text_more_and_skip_all_go_to_the_sidecar(pty_session):
    s = pty_session("ask", "--provider", "scripted", "--no-embeddings", "--max-cycles", "1", PROBLEM)
    s.expect(r"> ")
    s.send("We want to cut hosting costs\r")
    s.expect(r"What timeline")
    s.expect(r"> ")
    s.send("more\r")  # plans a second round, asked after the open question
    s.expect(r"The moderator will ask 1 more question; first, “What timeline are you working with")
    s.expect(r"> ")
    s.send("1\r")
    s.expect(r"What is the main goal behind this request \(round 2\)")
    s.expect(r"> ")
    s.send("skip all\r")
    s.expect(r"The council's answer")
    s.send("\r")
    assert s.wait() == 0


def test_a_new_question_typed_as_an_answer_is_confirmed_first(pty_session):
    s = pty_session("ask", "--provider", "scripted", "--no-embeddings", "--max-cycles", "1", PROBLEM,
                    env={"NO_COLOR": "1"})
    s.expect(r"> ")
    s.send("Should we use Kafka or RabbitMQ for our event bus?\r")
    s.expect(r"That reads like a new question\. Is it your answer to “What is the main goal behind this request")
    s.expect(r"Type 'y' to record it as your answer")
    s.send("Ship faster\r")  # not 'y': this is the answer
    s.expect(r"What timeline are you working with")
    s.expect(r"> ")
    s.send("How do we hire senior engineers faster in a tight market?\r")
    s.expect(r"Type 'y' to record it as your answer")
    s.send("y\r")
    s.expect(r"The council's answer")
    s.send("\r")
    assert s.wait() == 0
    assert "✓ What is the main goal behind this request (round 1)? — Ship faster" in s.text
    assert "— How do we hire senior engineers faster in a tight market?" in s.text


def test_extend_after_the_cycle_cap(pty_session, script_file):
    script = script_file(flip_flop_script())  # a council that never settles: only the cap stops it
    s = pty_session("ask", "--provider", "scripted", "--script", script, "--no-embeddings", "--max-cycles", "2",
                    "--personas", ",".join(FLIP_FLOP_COUNCIL), PROBLEM, env={"NO_COLOR": "1"})
    s.expect(r"> ")
    s.send("skip all\r")
    s.expect(r"The debate reached its limit of 2 cycles without full agreement\. Extend it to up to 20 cycles")
    s.expect(r"The council's answer")
    s.expect(r"Type 'extend' to let it continue")
    s.send("extend\r")
    s.expect(r"Cycle 3 of at most 20 · debate")
    s.expect(r"The debate reached its limit of 20 cycles without full agreement\.")
    s.expect(r"The council's answer")
    assert s.wait() == 0  # no second offer: the debate is already extended


def test_ctrl_c_mid_debate_cancels_cleanly(pty_session, script_file):
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.5}]})
    s = pty_session("ask", "--provider", "scripted", "--script", script, "--no-embeddings", "--yes", PROBLEM,
                    env={"NO_COLOR": "1"})
    s.expect(r"Cycle 1 · independent positions", timeout=60)
    assert processes_with(script), "the sidecar should be running with the script on its command line"
    s.send("\x03")
    s.expect(r"cancelled", timeout=20)
    assert s.wait() == 130
    assert "Traceback" not in s.text
    assert "The council's answer" not in s.text
    assert processes_with(script) == []  # no orphan `council serve`


def test_ctrl_c_at_the_prompt_cancels_cleanly(pty_session, script_file):
    marker = script_file({})
    s = pty_session("ask", "--provider", "scripted", "--script", marker, "--no-embeddings", PROBLEM,
                    env={"NO_COLOR": "1"})
    s.expect(r"> ")
    s.send("\x03")
    s.expect(r"cancelled", timeout=20)
    assert s.wait() == 130
    assert "Traceback" not in s.text
    assert processes_with(marker) == []


def test_retry_after_every_advisor_failed(pty_session, script_file):
    script = script_file({"rules": [{"when": {"schema": "PersonaReply"}, "error": "client", "times": 3}]})
    s = pty_session("ask", "--provider", "scripted", "--script", script, "--no-embeddings",
                    "--max-cycles", "2", PROBLEM, env={"NO_COLOR": "1"})
    s.expect(r"> ")
    s.send("skip all\r")
    s.expect(r"Every advisor failed")
    s.expect(r"Type 'retry' to try again")
    s.send("retry\r")
    s.expect(r"The council's answer")
    assert s.wait() == 0  # the debate ended by agreement, not at its cap: no "extend" prompt


def test_retry_when_no_model_could_be_reached_at_the_start(pty_session, script_file):
    """The session stops at the clarifier when its model cannot be reached (issue 19): the terminal offers the
    retry as it does after a failed debate cycle, and the retry starts from the questions."""
    script = script_file({"rules": [{"when": {}, "error": "unreachable", "times": 1}]})
    s = pty_session("ask", "--provider", "scripted", "--script", script, "--no-embeddings",
                    "--max-cycles", "2", PROBLEM, env={"NO_COLOR": "1"})
    s.expect(r"No model could be reached")
    s.expect(r"Type 'retry' to try again")
    s.send("retry\r")
    s.expect(r"> ")
    s.send("skip all\r")
    s.expect(r"The council's answer")
    assert s.wait() == 0
    assert "prepare questions" not in s.text



def test_a_failed_draft_of_the_answer_is_taken_back_from_the_terminal(pty_session, script_file):
    """Issue 31: on a terminal the chair's draft streams as it is written; when it fails it is cleared from the
    screen (``answer.withdrawn``), and the answer that replaces it stands alone under its heading."""
    s = pty_session("ask", "--provider", "scripted", "--script", script_file(CUT_OFF_CHAIR), "--no-embeddings",
                    "--yes", "--max-cycles", "1", PROBLEM, env={"NO_COLOR": "1", "COLUMNS": "80"})
    s.expect(DRAFT)  # it streamed
    s.expect(r"Consolidated from the advisors' replies")
    s.send("\r")
    assert s.wait() == 0
    shown = screen(s.output.replace("\r\n", "\n"))
    assert shown.count("The council's answer") == 1 and DRAFT not in shown, shown
    assert "Traceback" not in s.text
