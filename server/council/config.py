"""Sidecar configuration: which providers exist, which one is the default, which persona uses which.

Sources, later wins: built-in defaults → a JSON/TOML file (``--config`` or ``COUNCIL_CONFIG``) → environment
(``COUNCIL_PROVIDER``, ``COUNCIL_MODEL``, ``COUNCIL_BASE_URL``, ``COUNCIL_API_KEY_ENV``; ``COUNCIL_AGENT_CLIS=0`` seats
no agent CLI found on PATH) → command-line flags.
API keys are never stored here in clear: ``api_key`` holds a ``${VAR}`` reference or the name of an environment
variable, resolved at call time. Also the package's ``tomllib`` (``tomli`` on Python 3.10) and where the optional
model packages keep their files (:func:`package_files`).
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from council.providers.kinds import AGENT_CLI_KINDS, KINDS  # noqa: F401  (AGENT_CLI_KINDS: read here by many)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: A provider kind: a row of the provider table (:mod:`council.providers.kinds`).
ProviderKind = Literal[KINDS]  # type: ignore[valid-type]  # a tuple of strings: one Literal of them all

#: Where a workspace keeps its persona overrides (the extension's *Edit Personas*, ``define_personas``).
OVERRIDES_DIR = Path(".council") / "personas"

_VAR_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ConfigError(ValueError):
    """The configuration is unusable; the message says what to change."""


#: The largest config file read (a real one is a few KiB; the limit is checked before reading).
MAX_CONFIG_BYTES = 1024 * 1024


class ConfigFileError(ConfigError):
    """A config file that cannot be used: ``problem`` is its ``config.<problem>`` words key, ``params`` fill it.
    ``str()`` writes it in the language being written, so catch it where that language is set."""

    def __init__(self, path: str | Path, problem: str, **params: Any) -> None:
        self.path, self.problem, self.params = str(path), problem, params
        super().__init__(self.text())

    def text(self) -> str:
        from council.words import t

        params = dict(self.params)
        if "kind" in params:
            params["kind"] = t(f"config.kind.{params['kind']}")
        return t(f"config.{self.problem}", file=self.path, **params)

    def __str__(self) -> str:
        return self.text()


class ProviderConfig(BaseModel):
    """One configured model endpoint. ``options`` are kind-specific (validated by the provider)."""

    # hide_input_in_errors: a validation error must not echo a pasted key back.
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True, allow_inf_nan=False)

    kind: ProviderKind
    model: str = ""
    base_url: str | None = None
    api_key: str | None = Field(None, description="`${VAR}` or an env var name; never a literal key in logs.")
    timeout: float = Field(120.0, gt=0, description="Seconds: connect budget and longest silence mid-stream.")
    max_retries: int = Field(3, ge=0, le=10)
    options: dict[str, Any] = {}

    @field_validator("api_key")
    @classmethod
    def _reference_only(cls, value: str | None) -> str | None:
        if value is None or _VAR_REF.match(value) or _VAR_NAME.match(value):
            return value
        # Do not echo the value: it may be a pasted key.
        raise ValueError("api_key must be an environment variable reference like ${OPENAI_API_KEY}, not a literal key; "
                         "export the key and reference it")

    def api_key_var(self) -> str | None:
        if not self.api_key:
            return None
        m = _VAR_REF.match(self.api_key)
        return m.group(1) if m else self.api_key

    def resolve_api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """The key's value from the environment. Raises :class:`ConfigError` when the variable is unset."""
        var = self.api_key_var()
        if var is None:
            return None
        value = (os.environ if env is None else env).get(var)
        if not value:
            raise ConfigError(f"API key variable {var} is not set: export {var}=<your key> before starting council")
        return value


class CouncilConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True, allow_inf_nan=False)

    #: Name of the provider in ``providers`` to use by default; None = automatic selection.
    default: str | None = None
    providers: dict[str, ProviderConfig] = {}
    #: Persona name → provider name (different models for different personas).
    persona_providers: dict[str, str] = {}
    personas_dirs: list[Path] = []
    #: The workspace whose ``.council/personas`` holds persona overrides (``define_personas`` writes there).
    workspace: Path | None = None
    #: The folder the evidence tools read (None: no evidence). Only ever a workspace given explicitly.
    evidence_root: Path | None = None
    #: Let the evidence tools read a root that is a home or system folder (refused by default: credentials live there).
    evidence_any_root: bool = False
    #: Keep each completed decision in ``<workspace>/.council/decisions.sqlite3`` and recall similar ones (opt-in).
    memory: bool = False
    #: Write each completed session's transcript into this folder (opt-in).
    transcript_dir: Path | None = None
    session_ttl_seconds: float = Field(1800.0, gt=0)
    max_sessions: int = Field(128, ge=1)  # running at once; idle ones make room (see session/state/store.py)
    #: Where automatic selection looks for a local Ollama.
    ollama_url: str = "http://127.0.0.1:11434"
    #: Whether automatic selection seats the agent CLIs found on PATH that are signed in (README, "Models").
    agent_clis: bool = True

    def persona_layers(self) -> list[Path] | None:
        """The persona folders to load, in order (None: the shipped ones only). The workspace's overrides folder
        counts once it exists (``define_personas`` creates it), so its absence is not worth a warning."""
        overrides = self.workspace / OVERRIDES_DIR if self.workspace is not None else None
        return [d for d in self.personas_dirs if d != overrides or d.is_dir()] or None

    def provider(self, name: str) -> ProviderConfig:
        """The provider called ``name``; :class:`ConfigError` names the configured ones when it is missing."""
        try:
            return self.providers[name]
        except KeyError:
            known = ", ".join(sorted(self.providers)) or "none"
            raise ConfigError(f"no provider named {name!r} in the configuration (configured: {known})") from None


#: Where a provider named only by its kind (``council ask --models openai:gpt-4o``) finds its server and key: the
#: variables the OpenAI SDK reads.
OPENAI_KEY_VAR, OPENAI_URL_VAR = "OPENAI_API_KEY", "OPENAI_BASE_URL"
OPENAI_HOST = "api.openai.com"


def adhoc_provider(kind: str, model: str, *, base_url: str | None = None,
                   api_key_env: str | None = None) -> ProviderConfig:
    """A provider named only by its kind, with no config entry (a ``--models`` spec, a session's ``provider``). An
    ``openai`` one takes its key from the variable ``api_key_env`` names, else as README, "Models", says (OpenAI's
    own API without a key is a :class:`ConfigError`); other kinds take nothing from the environment."""
    env = os.environ
    if kind != "openai":
        return ProviderConfig(kind=kind, model=model, base_url=base_url)  # type: ignore[arg-type]
    base_url = base_url or env.get(OPENAI_URL_VAR) or None
    var = api_key_env or (OPENAI_KEY_VAR if env.get(OPENAI_KEY_VAR) else None)
    if var is None and (base_url is None or OPENAI_HOST in base_url.lower()):
        raise ConfigError(f"openai:{model} has no API key: export {OPENAI_KEY_VAR}=<your key> (and "
                          f"{OPENAI_URL_VAR}=<base URL> for another OpenAI-compatible server), or define the "
                          "provider in a --config file")
    return ProviderConfig(kind="openai", model=model, base_url=base_url, api_key=var)


def package_files(module: str, distribution: str, pattern: str) -> list[Path]:
    """The files matching ``pattern`` an installed package ships (under its folders, else in its distribution's file
    list), found without importing it: a model package's import is slow or needs more packages."""
    import importlib.metadata
    import importlib.util

    spec = importlib.util.find_spec(module)
    places = (spec.submodule_search_locations or []) if spec else []
    found = [path for place in places for path in sorted(Path(place).rglob(pattern))]
    if found:
        return found
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return []
    return [Path(str(f.locate())) for f in files if fnmatch.fnmatch(f.name, pattern)]


def read_config_file(path: str | Path) -> bytes:
    """The bytes of the config file at ``path`` (links followed; ``~`` expanded); :class:`ConfigFileError` when it is
    missing, a loop of links, not a regular file, larger than :data:`MAX_CONFIG_BYTES` or unreadable."""
    from council.errors import CouncilError
    from council.review.files import read_request_file

    try:
        real = Path(path).expanduser().resolve(strict=True)
    except FileNotFoundError:
        raise ConfigFileError(path, "missing") from None
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of links, before Python 3.13
        if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
            raise ConfigFileError(path, "loop") from None
        raise ConfigFileError(path, "unreadable", reason=exc.strerror or str(exc)) from None
    try:
        return read_request_file(real, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigFileError(path, "missing") from None
    except CouncilError as err:
        reason = err.details.get("reason")
        if reason == "not_regular":
            kind = str(err.details.get("kind", "special file")).replace(" ", "_")
            raise ConfigFileError(path, "not_regular", kind=kind) from None
        if reason == "too_large":
            size = err.details.get("size")
            raise ConfigFileError(path, "too_large", limit=_bytes(MAX_CONFIG_BYTES),
                                  size=_bytes(size) if size is not None else "?") from None
        raise ConfigFileError(path, "unreadable", reason=err.message) from None


def parse_config_file(path: str | Path, raw: bytes) -> dict[str, Any]:
    """The table a config file holds: TOML when its name ends in ``.toml``, else JSON (with no NaN or Infinity);
    :class:`ConfigFileError` when it is not UTF-8, not that format, or not a table at the top."""
    toml = Path(path).suffix == ".toml"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(path, "encoding", offset=exc.start) from None
    try:
        data = tomllib.loads(text) if toml else json.loads(text, parse_constant=_no_constant)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(path, "syntax", format="TOML", detail=str(exc)) from None
    except json.JSONDecodeError as exc:
        raise ConfigFileError(path, "syntax", format="JSON",
                              detail=f"{exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise ConfigFileError(path, "syntax", format="TOML" if toml else "JSON", detail=str(exc)) from None
    if not isinstance(data, dict):
        raise ConfigFileError(path, "not_table", format="JSON", type=type(data).__name__)
    return data


def field_errors(exc: ValidationError) -> str:
    """``field.path: what is wrong`` for each bad field (pydantic's own words, no input echoed, no URL)."""
    return "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
                     for err in exc.errors(include_url=False, include_input=False))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size >= 1024 * 1024 else f"{size} bytes"


def load_config(path: str | Path | None = None, env: dict[str, str] | None = None) -> CouncilConfig:
    env = dict(os.environ) if env is None else env
    data: dict[str, Any] = {}
    path = path or env.get("COUNCIL_CONFIG")
    if path:
        data = parse_config_file(path, read_config_file(path))
    try:
        cfg = CouncilConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigFileError(path or "", "fields", fields=field_errors(exc)) from None
    kind = env.get("COUNCIL_PROVIDER")
    if kind:
        cfg.providers["env"] = ProviderConfig(kind=kind, model=env.get("COUNCIL_MODEL", ""),  # type: ignore[arg-type]
                                              base_url=env.get("COUNCIL_BASE_URL") or None,
                                              api_key=env.get("COUNCIL_API_KEY_ENV") or None)
        cfg.default = "env"
    if env.get("COUNCIL_AGENT_CLIS", "").strip().lower() in ("0", "false", "no", "off"):
        cfg.agent_clis = False
    if env.get("COUNCIL_OLLAMA_URL"):
        cfg.ollama_url = env["COUNCIL_OLLAMA_URL"]
    if env.get("COUNCIL_PERSONAS_DIR"):
        cfg.personas_dirs = [Path(d) for d in env["COUNCIL_PERSONAS_DIR"].split(os.pathsep) if d]
    return cfg
