"""What the reducer does with the seating and spending records: seat the council, move a failed model's seats to
the chat's model, keep each stated plan, count each call per model.

Kept apart from ``reducer.py`` (which dispatches to :func:`apply_spend` and :func:`count_call`) so the rules of
seating and budgets live in one place beside ``seating.py`` and ``budget.py``.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session import records as r
from council.session.entities import ConversationSession
from council.session.seating import fall_back, model_label

SPEND_RECORDS = (r.SeatingDecided, r.SeatFellBack, r.CallsPlanned)


def apply_spend(s: ConversationSession, rec: r.SeatingDecided | r.SeatFellBack | r.CallsPlanned) -> None:
    if isinstance(rec, r.SeatingDecided):
        names = {p.name for p in s.personas}
        unknown = [seat.persona for seat in rec.seating.seats if seat.persona not in names]
        if unknown:
            raise validation_error("the seating names personas that are not on the council", personas=unknown)
        s.seating = rec.seating.model_copy(deep=True)  # fallbacks change it later; the journal keeps the record
    elif isinstance(rec, r.SeatFellBack):
        if s.seating is None:
            raise validation_error("a seat fell back before the session was seated")
        fall_back(s.seating, rec.model_id, rec.reason, rec.detail)
    else:
        s.call_plans.append(rec.plan)


def count_call(s: ConversationSession, rec: r.ModelUsed) -> None:
    label = model_label(rec.provider, rec.model)
    s.metadata.calls_by_model[label] = s.metadata.calls_by_model.get(label, 0) + 1
    if rec.failed:
        s.metadata.failed_by_model[label] = s.metadata.failed_by_model.get(label, 0) + 1
    s.metadata.calls += 1
    s.metadata.first_calls += int(not rec.retry)
