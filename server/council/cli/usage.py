"""The usage checks the commands share: numbers on the command line (ASCII digits only, one parser for every numeric
flag), the ``--workspace`` folder, and the configuration a command would start with (its ``--config`` file, else
``COUNCIL_CONFIG``, and the provider flags) — each problem one line on stderr naming the flag or the file and field,
in the user's language (the locale's), exit 2 (``council review``: 3, its own usage exit).

Loaded by every command's argument parser, so it imports nothing heavy: the config module only when a check runs.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from council.words import speaking, t

USAGE = 2

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class UsageError(Exception):
    """A usage problem; ``message`` is written in the language that was being written when it was raised."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def whole_number(text: str) -> int:
    """An argparse type: an integer in ASCII digits (``int()`` alone takes ``٣``, ``３``, ``1_0`` and spaces)."""
    if _INTEGER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts
            pass
    raise argparse.ArgumentTypeError(f"not a whole number in digits 0-9: {text!r}")


def decimal_number(text: str) -> float:
    """An argparse type: a finite decimal number in ASCII (``float()`` alone takes ``inf``, ``nan``, ``１.５``)."""
    if _DECIMAL.fullmatch(text) and math.isfinite(value := float(text)):
        return value
    raise argparse.ArgumentTypeError(f"not a number in digits 0-9: {text!r}")


def locale_language() -> str | None:
    """The terminal's language from the locale variables (``ru_RU.UTF-8`` → ``ru``), as POSIX orders them."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "").split(".")[0]
        if value:
            return value[:35] if value not in ("C", "POSIX") else None
    return None


def workspace_problem(workspace: str | None) -> str | None:
    """Why ``--workspace`` cannot be the workspace (it is not there, or not a folder), or None."""
    if not workspace:
        return None
    path = Path(workspace).expanduser()
    if not path.exists():
        return t("usage.workspace_missing", path=workspace)
    if not path.is_dir():
        return t("usage.workspace_not_folder", path=workspace)
    return None


def checked_setup(args: argparse.Namespace, build: Callable[[argparse.Namespace], Any] | None) -> Any:
    """``build(args)`` (the command's configuration; None: nothing built) after checking ``--workspace``;
    :class:`UsageError` when the folder or the configuration cannot be used. Call it inside :func:`speaking`."""
    if problem := workspace_problem(getattr(args, "workspace", None)):
        raise UsageError(problem)
    if build is None:
        return None
    from council.config import ConfigError

    try:
        return build(args)
    except ConfigError as err:
        raise UsageError(str(err)) from None


def refuse(command: str, message: str, code: int = USAGE) -> int:
    """Say a usage problem as one line on stderr (``council COMMAND: error: …``, in the locale's language)."""
    with speaking(locale_language()):
        print(t("usage.command_error", command=command, message=message), file=sys.stderr, flush=True)
    return code


def setup_or_refuse(command: str, args: argparse.Namespace,
                    build: Callable[[argparse.Namespace], Any] | None) -> tuple[Any, int | None]:
    """``(configuration, None)``, or ``(None, exit code)`` once a usage problem was said (see :func:`refuse`)."""
    with speaking(locale_language()):
        try:
            return checked_setup(args, build), None
        except UsageError as err:
            return None, refuse(command, err.message)
