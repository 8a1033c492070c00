"""What grounds a session beyond the debate: the evidence the advisors looked up in the workspace (and the files the
user attached) and the past decisions recalled from its decision memory. Both arrive as journal records, so a
restored session replays what was read instead of reading it again. Refusals are codes: ``council.present`` words
them for people, ``council.session.calls.prompts`` for models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from council.camel import CamelModel

EVIDENCE_TOOLS = ("read_file", "search_code", "list_files")
EvidenceTool = Literal["read_file", "search_code", "list_files", "attachment", "unknown"]
Refusal = Literal[
    "outside_workspace",  # `..`, an absolute path or a symlink that leaves the workspace root
    "not_found",
    "not_a_file",  # a folder where a file was asked for
    "gitignored",
    "secret",  # .env*, key files, credentials …
    "hard_link",  # a file with more than one hard link: its other names (a secret? outside?) cannot be judged
    "binary",
    "too_large",  # over 1 MB
    "bad_pattern",  # a regular expression or glob that does not compile
    "unknown_tool",
    "timeout",
    "no_workspace",  # the sidecar was started without a workspace (or with evidence off)
    "limit",  # more requests in one cycle than the council serves
    "unreadable",  # an attachment the client could not read
    "error",
]


class EvidenceResult(CamelModel):
    """What one evidence tool returned: the text the advisors read (bounded), or why it was refused."""

    ok: bool
    refusal: Refusal | None = None
    detail: str = Field("", max_length=300, description="Technical detail of a refusal (e.g. the regex error).")
    text: str = Field("", description="The result as every advisor reads it next cycle (bounded).")
    size: int = Field(0, ge=0, description="Bytes of the file read, or of the files searched or listed.")
    count: int = Field(0, ge=0, description="Lines in the file, matches found, or files listed.")
    truncated: bool = False
    files: list[str] = Field(default_factory=list, description="Workspace-relative paths the result is about.")
    uris: list[str] = Field(default_factory=list, description="Their file URIs (chat references).")


class EvidenceUse(EvidenceResult):
    """One evidence request and what came of it (``cycle`` 0: a file the user attached)."""

    use_id: str = Field(description="E1, E2 … in the order the session gathered them (advisors cite them).")
    cycle: int = Field(ge=0, description="The cycle whose replies asked for it; its results reach the next cycle.")
    requested_by: list[str] = Field(default_factory=list, description="The personas that asked (the user for "
                                                                      "attachments).")
    tool: EvidenceTool
    query: str = Field(description="The path, search text or glob (an attachment's name).")
    regex: bool = False


class Precedent(CamelModel):
    """A past decision of this workspace's council, recalled because its question is like this one."""

    decision_id: str
    decided_at: datetime
    question: str
    outcome: str = Field(description="What the council recommended (the winning option, or its recommendation).")
    consensus: str = Field("none", description="unanimous, majority, tie or none.")
    tally: str = Field("", description="The final votes, e.g. `A 2 · B 1`.")
    arguments: list[str] = []
    dissent: list[str] = []
    similarity: float = Field(ge=0.0, le=1.0)

