"""What hangs on a clarifying question (issue 20): the courses of action in play, which one each likely answer
favours, and how decisive the answer is — part of a question of the seed-002 data model (``entities.py``)."""

from __future__ import annotations

from pydantic import Field

from council.camel import CamelModel


class ChoiceLean(CamelModel):
    """One likely answer to a clarifying question and the course of action it would favour."""

    choice: str = Field(min_length=1, max_length=120, description="The choice's value.")
    favours: str | None = Field(None, max_length=200, description="The candidate it favours (None: no clear lean).")


class QuestionStakes(CamelModel):
    """What hangs on a clarifying question: the courses of action the council is likely to weigh, which one each
    likely answer favours, and how decisive the answer is (computed from the leans, never taken from a model)."""

    candidates: list[str] = Field(default_factory=list, max_length=4, description="The courses of action in play.")
    leans: list[ChoiceLean] = Field(default_factory=list, max_length=5, description="Per choice, what it favours.")
    decisiveness: float = Field(0.0, ge=0.0, le=1.0, description="The share of pairs of likely answers that favour "
                                                                 "different courses (0: every answer leads to the "
                                                                 "same recommendation).")

    @property
    def decisive(self) -> bool:
        """Whether the answer would move the recommendation: two likely answers favour different courses."""
        return self.decisiveness > 0
