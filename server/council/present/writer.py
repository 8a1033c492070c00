"""The texts the session stores as data (the seed's CouncilDiscussion.resolutionSummary and
ConversationSession.finalAnswer), written here and handed to the engine so the domain itself writes no prose."""

from __future__ import annotations

from council.present.answer import final_answer
from council.present.debate import cycle_lines
from council.session.state.convergence import Convergence
from council.session.state.entities import ConversationSession
from council.session.state.outputs import CouncilSynthesis
from council.words import speaking


class PresentWriter:
    """Implements the engine's ``Writer`` contract with this package's wording."""

    def resolution_summary(self, session: ConversationSession, cycle: int, conv: Convergence | None,
                           stop: str | None) -> str:
        with speaking(session.settings.language):
            return " ".join(cycle_lines(session, cycle, conv, stop)).replace("**", "")

    def final_answer(self, session: ConversationSession, synthesis: CouncilSynthesis) -> str:
        with speaking(session.settings.language):
            return final_answer(session, synthesis)
