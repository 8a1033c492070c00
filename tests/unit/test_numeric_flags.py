"""Every numeric flag of every command takes ASCII digits only (one parser, ``council.cli.usage``): ``int()`` and
``float()`` alone take ``٣``, ``３``, ``1_0``, `` 5 ``, ``inf`` and ``nan``."""

from __future__ import annotations

import pytest

from council.cli.main import parser

#: (command line before the flag, the flag, a good value, what it parses to, command line after the value)
FLAGS = [
    (["ask"], "--max-calls", "20", 20, ["q"]),
    (["ask"], "--max-personas", "3", 3, ["q"]),
    (["ask"], "--max-cycles", "4", 4, ["q"]),
    (["ask"], "--min-cycles", "2", 2, ["q"]),
    (["serve"], "--max-cycles", "4", 4, []),
    (["mcp"], "--min-cycles", "2", 2, []),
    (["mcp"], "--elicitation-timeout", "2.5", 2.5, []),
    (["review", "-"], "--artifact-budget", "5000", 5000, []),
    (["review", "-"], "--max-tokens", "800", 800, []),
    (["review", "-"], "--timeout", "1.5", 1.5, []),
    (["inbox", "d"], "--jobs", "3", 3, []),
    (["inbox", "d"], "--interval", "0.25", 0.25, []),
    (["inbox", "d"], "--settle", "1e-1", 0.1, []),
    (["decisions", "list"], "--limit", "7", 7, []),
]
NOT_ASCII = ["٣", "３", "1_0", " 5", "5 ", "²", "inf", "nan", "NaN", "1e999", "0x10", "", "five", "٣.٥", "５.０"]


def dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


@pytest.mark.parametrize(("before", "flag", "good", "value", "after"), FLAGS)
def test_ascii_digits_parse(before: list[str], flag: str, good: str, value: float, after: list[str]):
    args = parser(before[0]).parse_args([*before, flag, good, *after])
    assert getattr(args, dest(flag)) == value


@pytest.mark.parametrize(("before", "flag", "good", "value", "after"), FLAGS)
@pytest.mark.parametrize("text", NOT_ASCII)
def test_anything_else_is_a_usage_error_naming_the_flag(capsys, before: list[str], flag: str, good: str, value: float,
                                                         after: list[str], text: str):
    with pytest.raises(SystemExit) as exit_:
        parser(before[0]).parse_args([*before, f"{flag}={text}", *after])
    assert exit_.value.code == (3 if before[0] == "review" else 2)  # review: 2 is NEEDS_MORE_INFO
    err = capsys.readouterr().err
    assert f"argument {flag}: not a" in err and repr(text) in err, err
