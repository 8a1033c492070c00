"""What the sidecar keeps beyond a session's life, both opt-in: the decision memory (``--memory``) and transcript
files (``--transcript-dir``). Neither is touched when it is off: no folder is created, no file written.

:meth:`Archive.turn_done` runs after every turn: a completed session's decision is kept (a re-opened debate that
completes again updates it) and its transcript (re)written; a failure here is logged and never fails the turn.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import anyio.to_thread

from council.config import CouncilConfig
from council.errors import CouncilError, ErrorCode, validation_error
from council.memory import MemoryRefused, MemoryStore, SessionMemory
from council.present import decisions as words
from council.present.transcript import transcript
from council.protocol.consult import DecisionsParams, DecisionsResult
from council.session.state.entities import ConversationSession, SessionStatus
from council.transcripts import transcript_name

log = logging.getLogger(__name__)


def write_transcript(folder: Path, session: ConversationSession) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / transcript_name(session.created_at, session.request_text, session.session_id)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".council-", suffix=".md.tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(transcript(session))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class Archive:
    def __init__(self, config: CouncilConfig, ranker_factory: Callable[[], object | None] = lambda: None) -> None:
        self.memory: SessionMemory | None = None
        if config.memory and config.workspace is not None:
            self.memory = SessionMemory(MemoryStore(config.workspace), ranker_factory)
        self.transcript_dir: Path | None = config.transcript_dir
        self.ranker_factory = ranker_factory

    async def turn_done(self, session: ConversationSession) -> None:
        if session.status is not SessionStatus.COMPLETED or (self.memory is None and self.transcript_dir is None):
            return
        try:
            await anyio.to_thread.run_sync(self._keep, session)
        except Exception:  # never the turn's failure: the session itself is done
            log.exception("could not archive session %s", session.session_id)

    def _keep(self, session: ConversationSession) -> None:
        if self.memory is not None:
            try:
                self.memory.store.remember(session)
            except MemoryRefused as err:
                log.warning("session %s not kept: %s", session.session_id, words.refused(err))
            except Exception:
                log.exception("could not keep session %s in the decision memory", session.session_id)
        if self.transcript_dir is not None:
            try:
                path = write_transcript(self.transcript_dir, session)
                log.info("transcript of session %s written to %s", session.session_id, path)
            except Exception:
                log.exception("could not write the transcript of session %s", session.session_id)

    def decisions(self, params: DecisionsParams) -> DecisionsResult:
        """Past decisions by id, by similarity to a query, or the newest; refused while memory is off or when its
        file cannot be used (not a decision memory: validation; outside the workspace: permission)."""
        if self.memory is None:
            raise CouncilError(ErrorCode.PERMISSION, "the decision memory is off: start the council with --memory "
                               "and --workspace to keep and search decisions", reason="memory_off")
        store = self.memory.store
        try:
            if params.decision_id:
                found = store.get(params.decision_id)
                if found is None:
                    raise validation_error("no decision has that id (or the prefix names several)",
                                           fields={"decision_id": "unknown"}, decisionId=params.decision_id)
                result = DecisionsResult(decisions=[found])
            elif params.query:
                ranked, method = store.similar(params.query, self.ranker_factory(), params.limit, threshold=False)
                result = DecisionsResult(decisions=[d for d, _ in ranked],
                                         similarity=[round(s, 4) for _, s in ranked], method=method)
            else:
                result = DecisionsResult(decisions=store.all(params.limit))
        except MemoryRefused as err:
            code = ErrorCode.PERMISSION if err.reason == "outside_workspace" else ErrorCode.VALIDATION
            raise CouncilError(code, words.refused(err), reason=f"memory_{err.reason}", path=str(err.path)) from None
        result.markdown = words.listing(result.decisions, result.similarity, full_view=bool(params.decision_id),
                                        searched=bool(params.query))
        return result
