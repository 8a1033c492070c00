"""The decision memory's SQLite file, ``<workspace>/.council/decisions.sqlite3``, and recall from it.

One row per decision, keyed by session id (a re-opened debate that completes again updates it), the decision as JSON.
Reading never creates the file or its folder; only :meth:`MemoryStore.remember` does. A ``.council`` or file that
resolves outside the workspace is refused (``outside_workspace``), a file that is not SQLite as ``unreadable`` (never
rewritten).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import anyio.to_thread

from council.memory.models import Decision, decision_of
from council.personas.tfidf import OverlapRanker, cosine, idf_of, rank, unseen_idf, vector
from council.session.state.entities import ConversationSession
from council.session.state.grounds import Precedent
from council.word_match import tokenize

log = logging.getLogger(__name__)

FILE = Path(".council") / "decisions.sqlite3"
SCHEMA_VERSION = 1
# the least similarity worth recalling, per ranker (their scores are not on one scale); tfidf: paraphrases score
# 0.31–0.59, unrelated questions at most 0.24
THRESHOLDS = {"embeddings": 0.6, "tfidf": 0.28, "keywords": 0.2}
RECALLED = 3  # past decisions offered to a new session
MAX_KEPT = 5000  # decisions kept (the oldest are dropped beyond)
MIN_SHARED = 5  # letters of the shorter word, for a prefix or suffix to count as the same word

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    decision_id TEXT PRIMARY KEY,
    decided_at TEXT NOT NULL,
    question TEXT NOT NULL,
    outcome TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_decided_at ON decisions (decided_at);
"""


class MemoryRefused(Exception):
    """The memory file cannot be used: it is not a decision memory (``unreadable``), or it or its folder resolves
    outside the workspace (``outside_workspace``); ``detail`` is SQLite's reason or where the path leads."""

    def __init__(self, reason: str, path: Path, detail: str) -> None:
        super().__init__(f"{reason}: {path} ({detail})")
        self.reason, self.path, self.detail = reason, path, detail


class MemoryStore:
    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.path = self.workspace / FILE

    def check(self) -> None:
        """Raise :class:`MemoryRefused` when the memory cannot be used (creates nothing)."""
        with self._connect(create=False) as conn:
            if conn is not None:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()

    def _check_place(self) -> None:
        root = os.path.realpath(self.workspace)
        for path in (self.path.parent, self.path):
            real = os.path.realpath(path)
            if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
                raise MemoryRefused("outside_workspace", path, real)

    @contextmanager
    def _connect(self, *, create: bool) -> Iterator[sqlite3.Connection | None]:
        self._check_place()
        if not create and not self.path.is_file():
            yield None  # nothing kept yet: reading creates nothing
            return
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5.0)
        try:
            if create:
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            yield conn
            conn.commit()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):  # locked, busy, a missing table: not the file's fault
                raise
            raise MemoryRefused("unreadable", self.path, str(exc)) from None
        finally:
            conn.close()

    # --- writing -------------------------------------------------------------------------------------------------
    def remember(self, session: ConversationSession) -> Decision | None:
        """Keep (or update) the decision a completed session reached; returns it (None: nothing to keep)."""
        decision = decision_of(session)
        if decision is None:
            return None
        with self._connect(create=True) as conn:
            assert conn is not None
            conn.execute(
                "INSERT INTO decisions (decision_id, decided_at, question, outcome, data) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(decision_id) DO UPDATE SET decided_at = excluded.decided_at, "
                "question = excluded.question, outcome = excluded.outcome, data = excluded.data",
                (decision.decision_id, decision.decided_at.isoformat(), decision.question, decision.outcome,
                 decision.model_dump_json()))
            conn.execute("DELETE FROM decisions WHERE decision_id NOT IN (SELECT decision_id FROM decisions "
                         "ORDER BY decided_at DESC LIMIT ?)", (MAX_KEPT,))
        return decision

    def forget(self, decision_id: str) -> Decision | None:
        """Delete one decision (an id or an unambiguous prefix of one); returns what was deleted."""
        found = self.get(decision_id)
        if found is not None:
            with self._connect(create=False) as conn:
                if conn is not None:
                    conn.execute("DELETE FROM decisions WHERE decision_id = ?", (found.decision_id,))
        return found

    # --- reading -------------------------------------------------------------------------------------------------
    def _rows(self, sql: str, args: tuple = ()) -> list[Decision]:
        with self._connect(create=False) as conn:
            if conn is None:
                return []
            try:
                rows = conn.execute(sql, args).fetchall()
            except sqlite3.OperationalError:  # a file that is not (yet) ours: nothing to read in it
                return []
        out = []
        for (data,) in rows:
            try:
                out.append(Decision.model_validate(json.loads(data)))
            except ValueError:
                log.warning("skipping an unreadable decision in %s", self.path)
        return out

    def all(self, limit: int | None = None) -> list[Decision]:
        """Decisions, newest first."""
        return self._rows("SELECT data FROM decisions ORDER BY decided_at DESC LIMIT ?", (limit or -1,))

    def get(self, decision_id: str) -> Decision | None:
        """One decision by id, or by a prefix that names exactly one."""
        decision_id = decision_id.strip()
        if not decision_id:
            return None
        found = self._rows("SELECT data FROM decisions WHERE decision_id = ?", (decision_id,))
        if not found:
            escaped = decision_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            found = self._rows("SELECT data FROM decisions WHERE decision_id LIKE ? ESCAPE '\\' LIMIT 2",
                               (escaped + "%",))
        return found[0] if len(found) == 1 else None

    def similar(self, text: str, ranker: object | None = None, limit: int = RECALLED,
                threshold: bool = True) -> tuple[list[tuple[Decision, float]], str]:
        """Decisions whose questions are like ``text``, most similar first, and the method that judged it."""
        decisions = self.all()
        if not decisions or not text.strip():
            return [], "tfidf"
        docs = [d.question for d in decisions]
        chain = [r for r in (ranker, QuestionRanker(), OverlapRanker()) if getattr(r, "name", None) in THRESHOLDS]
        used, scores = rank(chain, text, docs, quiet=(Exception,)) or (OverlapRanker(), [0.0] * len(docs))
        floor = THRESHOLDS[used.name] if threshold else 1e-9
        ranked = sorted(zip(decisions, scores, strict=True), key=lambda x: x[1], reverse=True)
        return [(d, s) for d, s in ranked if s >= floor][:limit], used.name


@lru_cache(maxsize=20_000)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def related(a: str, b: str) -> bool:
    """``a`` and ``b`` are one word for the memory: equal, or the shorter begins or ends the longer."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return short == long or (len(short) >= MIN_SHARED and (long.startswith(short) or long.endswith(short)))


class QuestionRanker:
    """TF-IDF cosine (reported as ``tfidf``) between a question and kept questions, a kept word counting as the
    question's word it is :func:`related` to: "monolithic" meets "monolith", "microservices" meets "services", so
    paraphrases are recalled and questions that share only short or common words are not. Routing keeps the plain
    :class:`~council.personas.tfidf.TfidfRanker`: persona descriptions are not questions."""

    name = "tfidf"

    def score(self, query: str, docs: list[str]) -> list[float]:
        if not docs:
            return []
        asked = _tokens(query)
        kept = [_tokens(d) for d in docs]
        wanted = sorted(set(asked), key=len, reverse=True)
        same = {w: t for w in {w for words in kept for w in words}.difference(asked)
                for t in reversed(wanted) if related(w, t)}  # the longest related query word wins
        counts = [Counter(same.get(w, w) for w in words) for words in kept]
        idf = idf_of(counts)
        q = vector(Counter(asked), idf, default_idf=unseen_idf(len(docs)))
        return [round(cosine(q, vector(c, idf, default_idf=0.0)), 6) for c in counts]


class SessionMemory:
    """The memory as a session sees it (the engine's ``DecisionMemory``): recall off the event loop."""

    def __init__(self, store: MemoryStore, ranker_factory: Callable[[], object | None] = lambda: None) -> None:
        self.store = store
        self.ranker_factory = ranker_factory

    async def recall(self, text: str) -> tuple[list[Precedent], str]:
        found, method = await anyio.to_thread.run_sync(self.store.similar, text, self.ranker_factory())
        return [d.precedent(score) for d, score in found], method
