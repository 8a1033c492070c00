"""The ConversationSession domain, by layer: ``state`` (the entities, journal records, reducer and live sessions),
``calls`` (one structured model call: prompts, reply formats, parsing, streaming) and ``steps`` (the deliberation:
clarifier, debate, vote round, synthesis, follow-up, and the engine that conducts them). Each layer imports only the
ones before it; nothing here imports pygls, the wire protocol or the presentation."""
