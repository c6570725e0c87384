"""Compare two golden_outputs.py directories, allowing only reordered lines in --help files.

A file outside ``help/`` must be byte-identical; a ``help/`` file that differs must hold the same
lines in another order (option blocks moved, no text changed). Prints one line per differing file
and exits 1 if any difference is not a pure reordering.

Usage: python3 tools/golden_reordered.py BEFORE_DIR AFTER_DIR
"""

from __future__ import annotations

import filecmp
import sys
from pathlib import Path


def compare(before: Path, after: Path) -> int:
    """Print each differing file with its verdict; return the number that are not allowed."""
    bad = 0
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names |= {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    for rel in sorted(names):
        old, new = before / rel, after / rel
        if not old.is_file() or not new.is_file():
            print(f"MISSING   {rel}")
            bad += 1
        elif filecmp.cmp(old, new, shallow=False):
            continue
        elif rel.parts[0] == "help" and sorted(old.read_text().splitlines()) == sorted(
            new.read_text().splitlines()
        ):
            print(f"reordered {rel}")
        else:
            print(f"DIFFERS   {rel}")
            bad += 1
    return bad


if __name__ == "__main__":
    sys.exit(1 if compare(Path(sys.argv[1]), Path(sys.argv[2])) else 0)
