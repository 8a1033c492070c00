"""Kept only for ``council.service``'s one import of :class:`Reviewer` from here (a file another change reworks);
once it imports :mod:`council.reviewer`, delete this file. An upward import (the review domain into the review
service above it), kept for that one caller."""

from council.reviewer import Reviewer

__all__ = ["Reviewer"]
