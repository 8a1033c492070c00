"""The README's sentence about `scripts/ask` names the personas the routing seats (issue 31: it said "three personas"
while a question touching more areas seats five). `scripts/ask` runs `council ask` without embeddings, so routing
ranks by TF-IDF: the same call as here."""

from __future__ import annotations

import re
from pathlib import Path

from council.personas.loader import load_personas
from council.personas.routing import select_personas
from council.session.state.entities import SessionSettings

README = Path(__file__).resolve().parents[2] / "README.md"


def seated(question: str) -> list[str]:
    picked = select_personas(load_personas(), question, max_personas=SessionSettings().max_personas, ranker=None)
    return [p.name for p in picked.personas]


def test_the_readme_names_whom_scripts_ask_seats():
    text = " ".join(README.read_text(encoding="utf-8").split())
    example = re.search(r'^scripts/ask "([^"]+)"', README.read_text(encoding="utf-8"), re.M).group(1)
    assert seated(example) == ["Software Architect", "Senior Developer", "Devil's Advocate"]
    assert ("three for this one: Software Architect, Senior Developer and the Devil's Advocate; a question that "
            "touches more areas seats up to five") in text
    rust = re.search(r'seats up to five, e\.g\. "([^"]+)" adds the (\w[\w ]+) and the (\w[\w ]+), and', text)
    assert rust is not None
    names = seated(rust.group(1))
    assert len(names) == SessionSettings().max_personas == 5
    assert {rust.group(2), rust.group(3)} == set(names) - {"Software Architect", "Senior Developer", "Devil's Advocate"}
