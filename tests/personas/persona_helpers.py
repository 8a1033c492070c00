"""Shared test data for the persona tests: a valid contract as a dict and a tiny TOML writer."""

from __future__ import annotations

import json
from typing import Any

VALID: dict[str, Any] = {
    "id": "test-persona",
    "name": "Test Persona",
    "councils": ["engineering"],
    "soul": "A careful tester who has seen many flaky builds.",
    "focus": ["Reproducible failures", "Fast feedback"],
    "constraints": ["Refuses to merge red builds.", "Challenges every green build by rerunning it."],
    "allowed_tools": ["council.consult"],
    "domains": ["workflow"],
    "description": "Testing, flaky tests and CI feedback loops.",
    "always_include": False,
    "tone": "dry",
}


def to_toml(data: dict[str, Any]) -> str:
    """Tiny TOML writer for flat tables of strings, bools and string lists (JSON strings are TOML strings)."""
    lines = []
    for key, value in data.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        else:
            lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
