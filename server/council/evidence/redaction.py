"""Secrets recognised by content: every secret-looking span of the text the evidence tools show is replaced by
``[redacted: <what>]`` before an advisor (and so a model provider) can read it.

What is redacted (README, "Evidence"): private-key blocks (PEM ``-----BEGIN … PRIVATE KEY-----`` to its ``END``, on
one line or many, an unterminated one to the end of the file; PuTTY's ``Private-Lines``); token shapes (:data:`TOKENS`:
GitHub, Anthropic, OpenAI, Hugging Face, Google, AWS, Slack, Stripe, npm, PyPI, GitLab … and JSON web tokens);
passwords in URLs (``scheme://user:password@``) and on ``curl -u`` / ``sshpass -p`` command lines;
``Authorization: Bearer|Basic`` values; password hashes (``$6$…`` as in ``/etc/shadow``); and values assigned to a
name that ends in a secret word (:data:`SECRET_WORDS`: ``OPENAI_API_KEY=…``, ``"oauth_token": "…"``,
``password: …``) when quoted, or bare and not a plain identifier. No entropy guessing: hashes and ids in lock files
stay readable; a value on the line after its name (YAML) or under an arbitrary key (a Kubernetes Secret's ``data``)
is not recognised.

The patterns are modelled on the regex plugins of Yelp's detect-secrets, which is not used itself: it spends
~2.6 s on a 1 MB file with only its regex plugins (4.6 s with all, over a tool's 5 s limit), reports a value rather
than a span (its GitHub plugin reports ``ghp`` only), keeps global settings, and cannot load in the search child.
Each pattern here starts at a fixed prefix or a secret word and its repeats are bounded, so a line is scanned in
linear time. Standard library only, no council imports: :mod:`council.evidence.regex_worker` (``python -I -S``)
loads this file by its path and redacts every line before the model's pattern is matched, so a search cannot probe
a secret either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

MARK = "[redacted: {}]"
KEY = "private key"
SPAN = 10_000  # longer than any secret a pattern matches (a JSON web token is at most ~9,000 characters)


def mark(what: str) -> str:
    return MARK.format(what)


# (what, pattern): token shapes. Each starts with its fixed prefix (so ``re`` scans for it as fast as for a plain
# string) and checks right after it, looking back, that no letter or digit stands before the prefix.
_W = "A-Za-z0-9_"


def _shape(prefix: str, rest: str) -> str:
    return f"{prefix}(?<![{_W}]{prefix}){rest}"


TOKENS: tuple[tuple[str, str], ...] = (
    ("GitHub token", _shape("gh[pousr]_", "[A-Za-z0-9]{30,255}")),
    ("GitHub token", _shape("github_pat_", "[A-Za-z0-9_]{22,255}")),
    ("Anthropic key", _shape("sk-ant-", r"[A-Za-z0-9_\-]{20,300}")),
    ("OpenAI key", _shape("sk-", r"[A-Za-z0-9_\-]{20,300}")),
    ("Hugging Face token", _shape("hf_", "[A-Za-z0-9]{30,100}")),
    ("Google API key", _shape("AIza", r"[0-9A-Za-z_\-]{30,45}")),
    ("Google OAuth token", _shape(r"ya29\.", r"[0-9A-Za-z_\-]{20,2000}")),
    ("Google OAuth token", _shape("1//0", r"[0-9A-Za-z_\-]{30,500}")),
    ("Google OAuth secret", _shape("GOCSPX-", r"[A-Za-z0-9_\-]{20,100}")),
    ("AWS key", _shape("(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])", "[A-Z0-9]{16}(?![A-Za-z0-9])")),
    ("Slack token", _shape("xox[abposre]-", r"[A-Za-z0-9\-]{10,300}")),
    ("Slack webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,200}"),
    ("Stripe key", _shape("(?:sk|rk|pk)_(?:live|test)_", "[A-Za-z0-9]{16,200}")),
    ("npm token", _shape("npm_", "[A-Za-z0-9]{36}")),
    ("PyPI token", _shape("pypi-", r"[A-Za-z0-9_\-]{50,300}")),
    ("GitLab token", _shape("gl(?:pat|cbt)-", r"[A-Za-z0-9_\-]{20,100}")),
    ("GitLab token", _shape("gl[dr]t-", r"[A-Za-z0-9_\-]{20,100}")),
    ("DigitalOcean token", _shape("do[opr]_v1_", "[a-f0-9]{64}")),
    ("SendGrid key", _shape(r"SG\.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}")),
    ("Shopify token", _shape("shp(?:at|ca|pa|ss)_", "[a-fA-F0-9]{32}")),
    ("Twilio key", _shape("SK", "[0-9a-fA-F]{32}(?![A-Za-z0-9])")),
    ("Mailgun key", _shape("key-", "[0-9a-f]{32}(?![A-Za-z0-9])")),
    ("model provider key", _shape("(?:gsk_|xai-)", "[A-Za-z0-9]{30,100}")),
    ("model provider key", _shape("r8_", "[A-Za-z0-9]{30,100}")),
    ("model provider key", _shape("pplx-", "[A-Za-z0-9]{40,100}")),
    ("age key", _shape("AGE-SECRET-KEY-1", "[0-9A-Z]{58}")),
    ("Telegram bot token", r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}"),
    ("JSON web token", _shape("eyJ", r"[A-Za-z0-9_\-]{5,2000}\.eyJ[A-Za-z0-9_\-]{5,5000}\.[A-Za-z0-9_\-]{0,2000}")),
    ("password hash", r"\$(?:1|2[abxy]|5|6|y|gy|7|sha1|md5)\$[^\s:'\"]{20,300}"),
)
# A value is a secret when the name it is given ends in one of these (``OPENAI_API_KEY``, ``oauth_token``).
SECRET_WORDS = (r"api[_.\-]?key|apikey|secret|secret[_.\-]?key(?:[_.\-]?base)?|token|passwd|password|passphrase|pwd"
                r"|credentials?|private[_.\-]?key|access[_.\-]?key|account[_.\-]?key|shared[_.\-]?access[_.\-]?key|auth")
_ASSIGNED = rf"(?i:{SECRET_WORDS})[\"']?[ \t]{{0,8}}(?::=|=>|=|:)[ \t]{{0,8}}"
_TOKENS = tuple((re.compile(pattern), mark(what)) for what, pattern in TOKENS)
_URL_PASSWORD = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]{0,20}://[^\s/:@'\"]{1,200}:)([^\s/@'\"]{1,500})(?=@)")
_COMMAND_PASSWORD = re.compile(r"(\bcurl\b[^\n]{0,300}?\s(?:-u|--user)[ =]?['\"]?[^\s:'\"]{1,100}:"
                               r"|\bsshpass\s+-p\s*['\"]?)([^\s'\"]{1,200})")
_BEARER = re.compile(r"(?i)(\b(?:bearer|basic)[ \t]+)([A-Za-z0-9_\-.=+/~]{16,4000})")
_ASSIGNMENT = re.compile(rf"({_ASSIGNED})(?:([\"'])([^\"'\n]{{6,500}})\2|([^\s\"'#$;,&|(){{}}\[\]<>`]{{6,500}}))")
_PASSWORD_WORD = re.compile(r"(?i)pass|pwd")
# `token = request_token` (spaces around `=`: code) and `auth: self.auth` name a variable; `PASSWORD=hunter` does not
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_]*")
_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_CODE = re.compile(r"[ \t](?:=|:=|=>)[ \t]")
_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|\bPrivate-Lines:")
_KEY_END = re.compile(r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|\bPrivate-MAC:")


def _names_a_value(bare: str, code: bool) -> bool:
    """Whether an unquoted value is a name for one (``self.auth``, ``None``; a bare word after `` = ``)."""
    return bare.lower() in ("none", "null", "true", "false") or bool(_REFERENCE.fullmatch(bare)) or \
        (code and bool(_IDENTIFIER.fullmatch(bare)))


def _assignment(m: re.Match[str]) -> str:
    quoted, bare = m.group(3), m.group(4)
    value = quoted if quoted is not None else bare
    if value.startswith(MARK[:10]) or (quoted is not None and " " in value.strip()
                                       and not _PASSWORD_WORD.search(m.group(1))):
        return m.group(0)  # already redacted, or a sentence (`token_help = "the token your provider gives"`)
    if bare is not None and _names_a_value(bare, code=bool(_CODE.search(m.group(1)))):
        return m.group(0)
    q = m.group(2) or ""
    return f"{m.group(1)}{q}{mark('secret')}{q}"


def redact(line: str) -> str:
    """``line`` with every secret-looking span on it replaced (private-key blocks that span lines: :func:`lines`)."""
    for shape, marked in _TOKENS:
        line = shape.sub(marked, line)
    line = _URL_PASSWORD.sub(lambda m: m.group(1) + mark("password"), line)
    line = _COMMAND_PASSWORD.sub(lambda m: m.group(1) + mark("password"), line)
    line = _BEARER.sub(lambda m: m.group(1) + mark("credential"), line)
    return _ASSIGNMENT.sub(_assignment, line)


def may_hold_key(data: bytes) -> bool:
    """Whether a file's bytes may hold a private-key block (else :meth:`Redactor.key_lines` can be skipped)."""
    return b"-----BEGIN" in data or b"Private-Lines:" in data


class Redactor:
    """Redacts a file line by line, in order: it remembers whether a private-key block is open."""

    def __init__(self) -> None:
        self.in_key = False

    def key_lines(self, line: str) -> str | None:
        """The line with its private-key parts replaced when it holds any (None when it holds none)."""
        if not self.in_key and "-----BEGIN" not in line and "Private-Lines:" not in line:
            return None
        out, at = [], 0
        while at <= len(line):
            if self.in_key:
                end = _KEY_END.search(line, at)
                if end is None:
                    out.append(mark(KEY))
                    return "".join(out)
                out.append(mark(KEY))
                self.in_key, at = False, end.end()
                if end.group(0) == "Private-MAC:":
                    return "".join(out)  # the MAC line is the key's too
            else:
                begin = _KEY_BEGIN.search(line, at)
                if begin is None:
                    out.append(line[at:])
                    return "".join(out)
                out.append(line[at:begin.start()])
                self.in_key, at = True, begin.end()
        return "".join(out)

    def line(self, line: str, shown: int | None = None) -> str:
        """One line, redacted; ``shown``: only its first characters are shown (the rest is dropped before the span
        patterns run, :data:`SPAN` past them so that no secret is cut where they end)."""
        keyed = self.key_lines(line)  # the whole line: a key block that opens late goes on below
        text = keyed if keyed is not None else line
        return redact(text if shown is None else text[:shown + SPAN])


def lines(text_lines: Iterable[str]) -> Iterator[str]:
    """Every line redacted (a private-key block replaced line by line, so line numbers stay)."""
    redactor = Redactor()
    for line in text_lines:
        yield redactor.line(line)


def text(value: str) -> str:
    """A whole text redacted (its line breaks kept)."""
    return "\n".join(lines(value.split("\n")))
