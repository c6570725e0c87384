"""Write the corpus and the query dictionary of the seed001-page-cache example track.

``documents.json``: ``--docs`` place documents (a geo point, a name, tags and a filler text, so
the indices take disk space); ``locations.txt``: ``--locations`` random ``lat,lon`` lines, the
dictionary that the track's param source draws a query point from for every request (seed 001's
``$RDICT``, which kept caches from answering repeated queries).

Usage: ``python3 make_corpus.py --docs 200000`` then race with ``--track-params=document_count:200000``.
Deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

_WORDS = [
    "harbour",
    "station",
    "market",
    "temple",
    "garden",
    "bridge",
    "tower",
    "museum",
    "river",
    "hill",
    "school",
    "hospital",
    "library",
    "stadium",
    "airport",
    "road",
    "lake",
    "park",
    "square",
    "gate",
    "palace",
    "street",
    "village",
    "valley",
    "forest",
    "island",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=50_000, help="documents (default 50000)")
    parser.add_argument("--locations", type=int, default=5_000, help="dictionary lines (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    with (args.out / "documents.json").open("w", encoding="utf-8") as out:
        for i in range(args.docs):
            doc = {
                "id": i,
                "name": " ".join(rng.choices(_WORDS, k=2)),
                "location": {
                    "lat": round(rng.uniform(18.0, 53.0), 6),
                    "lon": round(rng.uniform(73.0, 135.0), 6),
                },
                "tags": rng.sample(_WORDS, 3),
                "popularity": rng.randint(0, 10_000),
                "description": " ".join(rng.choices(_WORDS, k=40)),
            }
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")
    with (args.out / "locations.txt").open("w", encoding="utf-8") as out:
        for _ in range(args.locations):
            out.write(f"{rng.uniform(18.0, 53.0):.5f},{rng.uniform(73.0, 135.0):.5f}\n")
    print(f"wrote {args.docs} documents and {args.locations} locations to {args.out}")
    print(f"race with: --track-params=document_count:{args.docs}")


if __name__ == "__main__":
    main()
