"""Journals brought back from a client (``council/restore``): the part of them a new sidecar can continue from."""

from __future__ import annotations

from council.session import records as r


def stable_prefix(journal: list[r.RecordBase]) -> list[r.RecordBase]:
    """The journal without a debate cycle that never concluded (the old sidecar died in it: it runs again).

    Everything a cycle records happens between its ``CycleStarted`` and ``CycleConcluded``; cutting at the last
    unconcluded start leaves a session whose status is still ``debating``, so ``retry`` resumes the debate. A
    cycle taken back by ``CycleDropped`` (a stop) is closed too, and the stop that follows it is kept.
    """
    started = None
    for i, rec in enumerate(journal):
        if isinstance(rec, r.CycleStarted):
            started = i
        elif isinstance(rec, r.CycleConcluded | r.CycleDropped):
            started = None
    return journal[:started] if started is not None else list(journal)
