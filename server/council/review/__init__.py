"""Review mode (seed 004): a review council of persona roles judges a proposed change and a chair decides by rule.

``models`` holds the seed's objects; ``panel`` seats the roles for a change type; ``budget`` fits artifacts into
prompts; ``verdicts`` runs the roles concurrently (and one debate round when they disagree); ``rules`` turns the
verdicts into the outcome and the axis scores; ``run`` conducts a review; ``api`` is the entry point every surface
uses (CLI, inbox, sidecar, MCP, VS Code); ``inbox`` is the JSON drop-folder transport. This package imports nothing
at load time, so the persona contracts can use its enums.
"""
