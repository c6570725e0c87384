"""Write docs/rally-options.md: every option of every Rally 2.13 sub-command and what esbench does
with it, from Rally's own argument parser and esbench's option table.

Usage: python3 tools/rally_options_doc.py [--check]
  --check: exit 1 if docs/rally-options.md is not what the parser and the table give now.
Needs a Python with esrally 2.13 (``.ci/run`` makes ~/.cache/esbench/rally-2.13; or set
ESBENCH_RALLY_PYTHON).
"""

from __future__ import annotations

import sys
from pathlib import Path

from esbench.cli import main
from esbench.cli.options.coverage import coverage, read_rally_parser, render_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "rally-options.md"


def current() -> str:
    """The document as Rally's parser and esbench's table give it now."""
    version, arguments = read_rally_parser()
    return render_markdown(version, coverage(main, arguments))


def run(argv: list[str]) -> int:
    """Write (or with ``--check``, compare) the document; the exit status."""
    text = current()
    if "--check" in argv:
        if not DOC.is_file() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC} is out of date: run python3 tools/rally_options_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"Wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
