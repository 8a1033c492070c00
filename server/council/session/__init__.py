"""The ConversationSession domain: entities, journal records, the transition table, and the engine that drives a
session through clarification, debate, votes and synthesis. Nothing here imports pygls."""
