"""Fixtures for the persona tests: the shipped library and a writer for persona TOML files in tmp dirs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from persona_helpers import VALID, to_toml

from council.personas.loader import PersonaLibrary, load_personas


@pytest.fixture(scope="session")
def library() -> PersonaLibrary:
    return load_personas()


@pytest.fixture
def write_persona(tmp_path: Path) -> Callable[..., Path]:
    """``write_persona(filename, drop=[...], **fields)``: a persona file in ``tmp_path/<dir>``."""

    def write(filename: str = "test-persona.toml", *, directory: str = "workspace",
              drop: tuple[str, ...] = (), raw: str | None = None, **fields: Any) -> Path:
        folder = tmp_path / directory
        folder.mkdir(exist_ok=True)
        data = {k: v for k, v in {**VALID, **fields}.items() if k not in drop}
        path = folder / filename
        path.write_text(raw if raw is not None else to_toml(data), encoding="utf-8")
        return path

    return write
