"""Write docs/rally-options.md and docs/osb-options.md: every option of every sub-command of Rally
2.13 and of OpenSearch Benchmark 2.4.0 and what esbench does with it, from each tool's own argument
parser and esbench's option table.

Usage: python3 tools/rally_options_doc.py [--check] [rally|osb ...]
  --check: exit 1 if a document is not what the parser and the table give now.
  rally / osb: only that peer's document (default: both).
Needs a Python with esrally 2.13 (``.ci/run`` makes ~/.cache/esbench/rally-2.13; or set
ESBENCH_RALLY_PYTHON) and one with opensearch-benchmark 2.4.0 (~/.cache/esbench/osb-2.4.0; or set
ESBENCH_OSB_PYTHON).
"""

from __future__ import annotations

import sys
from pathlib import Path

from esbench.cli import main
from esbench.cli.options.coverage import OSB, PEERS, RALLY, Peer, coverage, read_parser, render_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The Rally document (kept for callers that name it).
DOC = DOCS / RALLY.doc


def current(peer: Peer = RALLY) -> str:
    """``peer``'s document as its parser and esbench's table give it now."""
    version, arguments = read_parser(peer)
    return render_markdown(version, coverage(main, arguments, peer), peer)


def run(argv: list[str]) -> int:
    """Write (or with ``--check``, compare) the documents; the exit status."""
    named = {"rally": RALLY, "osb": OSB}
    peers = [named[a] for a in argv if a in named] or list(PEERS)
    status = 0
    for peer in peers:
        doc = DOCS / peer.doc
        text = current(peer)
        if "--check" in argv:
            if not doc.is_file() or doc.read_text(encoding="utf-8") != text:
                print(f"{doc} is out of date: run python3 tools/rally_options_doc.py", file=sys.stderr)
                status = 1
            continue
        doc.write_text(text, encoding="utf-8")
        print(f"Wrote {doc}")
    return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
