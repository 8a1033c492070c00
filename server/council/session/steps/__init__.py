"""The deliberation steps (clarifier, debate cycles, vote round, synthesis, follow-up, revisits, evidence) and the
engine that conducts them. The top layer of the session: imports ``state`` and ``calls``."""
