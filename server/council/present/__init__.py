"""Everything a person reads: the only code that turns council data into prose.

Questions, assumptions, the council's members, persona contributions (live while they stream, and final), options,
votes, cycle summaries with convergence in words, limit notices, progress and problem lines, status, the final
answer and the transcript; review decisions and their progress lines. The session domain produces data; the
narrator (``council.narrator``) and the service call these functions and put the markdown on the wire, where the
VS Code extension and ``council ask`` print it.
"""
