"""Review mode (seed 004): a review council of persona roles judges a proposed change and a chair decides by rule.

Its entry point for every surface is ``council.reviewer``. This package imports nothing at load time, so the persona
contracts can use its enums.
"""
