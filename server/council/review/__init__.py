"""Review mode (seed 004): a review council of persona roles judges a proposed change and a chair decides by rule.

``models`` holds the seed's objects; ``requests`` reads one; ``panel`` seats the roles for a change type; ``budget``
and ``prompts`` fit the request into the roles' prompts; ``calls`` runs the roles concurrently (and one debate round
when they disagree); ``rules`` turns the verdicts into the outcome and the axis scores; ``run`` conducts a review;
``inbox`` (over ``files``) is the JSON drop-folder transport. The entry point every surface uses is
``council.reviewer``. This package imports nothing at load time, so the persona contracts can use its enums.
"""
