"""The session state kernel: entities, journal records, the reducer and its transition table, live sessions and
their store. Data and the rules that change it; imports neither ``calls`` nor ``steps``."""
