"""``council ask`` in a Russian session where an advisor's reply stays unusable: its abstention is said in Russian
(the engine's English note, "… abstains: unusable reply after one repair attempt: …", was printed as it is)."""

from __future__ import annotations

from .conftest import run_council

QUESTION = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
COUNCIL = "Software Architect,Senior Developer,Devil's Advocate"
SCRIPT = {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Senior Developer"}, "reply": "garbage"}]}


def test_an_abstention_in_a_russian_session_prints_in_russian(script_file):
    r = run_council("ask", "--provider", "scripted", "--script", script_file(SCRIPT), "--no-embeddings",
                    "--max-cycles", "2", "--depth", "brief", "--personas", COUNCIL, "--language", "ru", "--yes",
                    QUESTION)
    printed = r.stdout + r.stderr
    assert r.returncode == 0, printed
    said = "Старший разработчик воздерживается: его ответ не удалось использовать даже после одной попытки исправления"
    assert printed.count(said) == 2, printed  # cycle 1 and cycle 2
    assert "abstains" not in printed and "repair attempt" not in printed and "JSON" not in printed
