"""Loading persona contracts from TOML files, and the :class:`PersonaLibrary` that looks them up.

Layers, later wins: the repository's ``personas/``, then each directory passed to :func:`load_personas` (a user's
workspace). A file whose ``id`` matches an earlier layer's persona overrides it field by field (a partial file, say
only ``soul``, adjusts it); a file without ``id`` takes its file name as the id. Every error names the file and field.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from council.config import tomllib
from council.personas.contract import PersonaContract, PersonaInfo
from council.personas.names import remember
from council.word_match import stem

log = logging.getLogger(__name__)

_APOSTROPHES = re.compile(r"['\u2018\u2019\u02bc`´]")
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-я]")
# Words right before a role name that mean the user describes someone, not addresses a persona.
_NOT_ADDRESSED = {"our", "my", "their", "your", "his", "her", "наш", "наша", "наши", "мой", "моя", "я"}
_NOT_ADDRESSED_PAIRS = {("as", "a"), ("as", "an"), ("im", "a"), ("am", "a"), ("are", "a"), ("is", "a")}


class PersonaLoadError(ValueError):
    """A persona file is unreadable or invalid; the message names the file and the field (or line)."""

    def __init__(self, message: str, *, path: Path | None = None, field: str | None = None,
                 line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.field = field
        self.line = line


class UnknownPersonaError(LookupError):
    """A requested persona does not exist; the message lists the valid names."""

    def __init__(self, unknown: list[str], valid: list[str]) -> None:
        self.unknown = list(unknown)
        self.valid = list(valid)
        super().__init__(f"unknown persona(s): {', '.join(map(repr, unknown))}; valid personas: "
                         f"{', '.join(valid)}")


def normalize_name(text: str) -> str:
    """Lowercase, drop apostrophes (straight or curly), fold ``ё``, turn punctuation into single spaces."""
    text = _APOSTROPHES.sub("", text.lower().replace("ё", "е"))
    return " ".join(_NON_WORD.sub(" ", text).split())


def _word_matches(pattern: str, word: str) -> bool:
    if pattern == word:
        return True
    if _CYRILLIC.search(pattern):  # Russian inflects: "эксперт" names "эксперта", "экспертом"…
        return len(pattern) >= 4 and stem(word) == stem(pattern)
    return word == pattern + "s"


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class PersonaLibrary:
    """The loaded personas, in load order, with case- and punctuation-insensitive lookup."""

    def __init__(self, personas: Iterable[PersonaContract], sources: dict[str, str]) -> None:
        self._personas = list(personas)  # one per id: load_personas keys them by id
        self._sources = dict(sources)
        seen_names: dict[str, str] = {}
        for p in self._personas:
            key = normalize_name(p.name)
            if key in seen_names:
                raise PersonaLoadError(
                    f"{self.source(p.id)}: field 'name': {p.name!r} is already the name of persona "
                    f"{seen_names[key]!r}", field="name")
            seen_names[key] = p.id
        self._exact: dict[str, PersonaContract] = {}
        for p in self._personas:  # aliases first so that names and ids win a collision
            for alias in p.aliases:
                self._exact.setdefault(normalize_name(alias), p)
        for p in self._personas:
            for localized in p.names.values():  # "Адвокат дьявола" names the Devil's Advocate too
                self._exact.setdefault(normalize_name(localized), p)
        for p in self._personas:
            self._exact[normalize_name(p.id)] = p
            self._exact[normalize_name(p.name)] = p
        remember(self._personas)

    @property
    def all(self) -> list[PersonaContract]:
        return list(self._personas)

    def __iter__(self) -> Iterator[PersonaContract]:
        return iter(self._personas)

    def __len__(self) -> int:
        return len(self._personas)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self._personas]

    def source(self, persona_id: str) -> str:
        """Which file the persona came from (the last file that changed it)."""
        return self._sources.get(persona_id, "<memory>")

    def get(self, name_or_id: str) -> PersonaContract | None:
        """Find a persona by name, id or alias, ignoring case and punctuation; else by an unambiguous prefix.

        ``"devils advocate"``, ``"Devil’s Advocate"`` and ``"devils-advocate"`` all match; ``"security"``
        matches Security Expert because no other name has a word starting with it; ``"advocate"`` and
        ``"dev"`` are ambiguous: None.
        """
        query = normalize_name(name_or_id)
        if not query:
            return None
        if query in self._exact:
            return self._exact[query]
        if len(query) < 3:
            return None
        candidates = self._prefix_matches(query)
        return candidates[0] if len(candidates) == 1 else None

    def _prefix_matches(self, query: str) -> list[PersonaContract]:
        """Personas with a name or id in which some word starts a run that begins with ``query``."""
        found = []
        for p in self._personas:
            for key in (normalize_name(p.name), normalize_name(p.id)):
                words = key.split()
                if any(" ".join(words[i:]).startswith(query) for i in range(len(words))):
                    found.append(p)
                    break
        return found

    def require(self, name_or_id: str) -> PersonaContract:
        persona = self.get(name_or_id)
        if persona is None:
            raise UnknownPersonaError([name_or_id], self.names)
        return persona

    def council(self, name: str) -> list[PersonaContract]:
        """The members of one council (``"business"``, ``"engineering"``), in load order."""
        key = normalize_name(name).replace(" ", "-")
        return [p for p in self._personas if key in p.councils]

    @property
    def councils(self) -> dict[str, list[str]]:
        """Council → member names, councils in order of first appearance."""
        result: dict[str, list[str]] = {}
        for p in self._personas:
            for c in p.councils:
                result.setdefault(c, []).append(p.name)
        return result

    def infos(self) -> list[PersonaInfo]:
        return [p.to_info(self.source(p.id)) for p in self._personas]

    def names_in_text(self, text: str) -> list[PersonaContract]:
        """Personas the user names in free text ("ask the security expert and the devil's advocate").

        Matches full names, ids and multi-word or acronym aliases as whole words (Russian aliases with their
        inflections), never a single common word like "security". Self-descriptions ("as a product manager",
        "our security expert") do not count. Returns the personas in order of first mention.
        """
        words = normalize_name(text).split()
        first: dict[str, int] = {}
        for p in self._personas:
            for phrase in self._phrases(p):
                pos = _find_phrase(words, phrase)
                if pos is not None and pos < first.get(p.id, len(words) + 1):
                    first[p.id] = pos
        by_id = {p.id: p for p in self._personas}
        return [by_id[pid] for pid, _ in sorted(first.items(), key=lambda item: item[1])]

    @staticmethod
    def _phrases(p: PersonaContract) -> list[list[str]]:
        phrases = {normalize_name(p.name), normalize_name(p.id)}
        for alias in p.aliases:
            norm = normalize_name(alias)
            if " " in norm or (alias.isupper() and len(alias) >= 3):
                phrases.add(norm)
        return [ph.split() for ph in phrases if ph]


def _find_phrase(words: list[str], phrase: list[str]) -> int | None:
    n = len(phrase)
    for i in range(len(words) - n + 1):
        if all(_word_matches(pw, w) for pw, w in zip(phrase, words[i:i + n], strict=True)):
            before = words[max(0, i - 2):i]
            if (before and before[-1] in _NOT_ADDRESSED) or tuple(before) in _NOT_ADDRESSED_PAIRS:
                continue
            return i
    return None


def default_personas_dir() -> Path:
    """The built-in persona contracts: the repository's ``personas/`` in a source checkout, else the copy that
    ships inside the package (``council._personas``, the same files)."""
    source = Path(__file__).resolve().parents[3] / "personas"
    if source.is_dir():
        return source
    spec = importlib.util.find_spec("council._personas")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else source


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PersonaLoadError(f"{_display(path)}: cannot read file: {exc}", path=path) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = getattr(exc, "lineno", None) or (int(match.group(1)) if match else None)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f" at line {line}" + (f", column {match.group(2)}" if match else "") if line else ""
        raise PersonaLoadError(f"{_display(path)}: TOML syntax error{where}: {reason}",
                               path=path, line=line) from exc


def _validate(path: Path, raw: dict[str, Any]) -> PersonaContract:
    try:
        return PersonaContract.model_validate(raw)
    except ValidationError as exc:
        fields = [".".join(str(part) for part in err["loc"]) or "<file>" for err in exc.errors()]
        problems = [f"field '{f}': {err['msg'].removeprefix('Value error, ')}"
                    for f, err in zip(fields, exc.errors(), strict=True)]
        raise PersonaLoadError(f"{_display(path)}: {'; '.join(problems)}", path=path,
                               field=fields[0] if fields else None) from exc


def load_personas(dirs: list[Path] | None = None) -> PersonaLibrary:
    """Load the repository's personas, then each directory in ``dirs`` over them (later overrides earlier).

    The default directory must exist; a missing extra directory is skipped with a warning. Raises
    :class:`PersonaLoadError` on the first invalid file.
    """
    default = default_personas_dir()
    if not default.is_dir():
        raise PersonaLoadError(f"{default}: persona directory not found", path=default)
    raws: dict[str, dict[str, Any]] = {}
    contracts: dict[str, PersonaContract] = {}
    sources: dict[str, str] = {}
    for layer in [default, *(Path(d) for d in dirs or [])]:
        if not layer.is_dir():
            log.warning("persona directory %s does not exist; skipped", layer)
            continue
        in_layer: dict[str, Path] = {}
        for path in sorted(layer.glob("*.toml")):
            raw = _read_toml(path)
            pid = raw.get("id", path.stem)
            if not isinstance(pid, str):
                raise PersonaLoadError(f"{_display(path)}: field 'id': must be a string",
                                       path=path, field="id")
            if pid in in_layer:
                raise PersonaLoadError(
                    f"{_display(path)}: field 'id': {pid!r} is already defined by {_display(in_layer[pid])}",
                    path=path, field="id")
            in_layer[pid] = path
            merged = {**raws.get(pid, {}), **raw, "id": pid}
            contracts[pid] = _validate(path, merged)
            raws[pid] = merged
            sources[pid] = _display(path)
            log.debug("loaded persona %s from %s", pid, path)
    if not contracts:
        raise PersonaLoadError(f"{_display(default)}: no persona files (*.toml) found", path=default)
    return PersonaLibrary(contracts.values(), sources)
