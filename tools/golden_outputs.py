"""Write every user-visible output of stored races and every command's --help to a directory.

A behaviour-preserving refactor must leave these files byte-identical: run this script before
and after, then ``diff -r BEFORE AFTER``. For each results store given it writes, per race:
``esbench report`` in text, markdown, csv, json and html (the html with its plotly bundle
stripped, since the page embeds it unchanged), the race's ``results.json`` shape
(``RaceResult.to_dict``), plus ``list races`` (json) and a ``compare`` of consecutive races.
``--help`` of every command and sub-command goes to ``help/``.

Usage: python3 tools/golden_outputs.py OUT_DIR STORE.db [STORE.db ...]
Reproduce the check: python3 tools/golden_outputs.py /tmp/before ~/.esbench/results.db; (change);
python3 tools/golden_outputs.py /tmp/after ~/.esbench/results.db; diff -r /tmp/before /tmp/after
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from esbench.cli import main as cli_main

_SCRIPT = re.compile(r"(<script[^>]*>)(.*?)(</script>)", re.S)


def _strip_bundles(page: str) -> str:
    """The page with each script over 500 kB (the plotly bundle) replaced by its SHA-256."""

    def one(m: re.Match[str]) -> str:
        body = m.group(2)
        if len(body) < 500_000:
            return m.group(0)
        return m.group(1) + "sha256:" + hashlib.sha256(body.encode()).hexdigest() + m.group(3)

    return _SCRIPT.sub(one, page)


def _invoke(args: list[str]) -> str:
    result = CliRunner().invoke(cli_main, args, catch_exceptions=True, env={"COLUMNS": "100"})
    text = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += f"\n[exception] {type(result.exception).__name__}: {result.exception}"
    return f"[exit {result.exit_code}]\n{text}"


def _helps(out: Path, group: click.Group, prefix: list[str]) -> None:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None:
            continue
        path = [*prefix, name]
        (out / ("_".join(path) + ".txt")).write_text(_invoke([*path, "--help"]))
        if isinstance(cmd, click.Group):
            _helps(out, cmd, path)


def _race_ids(db: str) -> list[str]:
    text = _invoke(["list", "races", "--format=json", "--limit=0", "--results-db", db])
    body = text.split("\n", 1)[1]
    return [r["race_id"] for r in json.loads(body)]


def main(out_dir: str, dbs: list[str]) -> None:
    out = Path(out_dir)
    (out / "help").mkdir(parents=True, exist_ok=True)
    (out / "help" / "main.txt").write_text(_invoke(["--help"]))
    _helps(out / "help", cli_main, [])
    try:
        from esbench.results import ResultsStore
    except ImportError:
        from esbench.results.store import ResultsStore

    for n, db in enumerate(dbs):
        store_dir = out / f"store{n}"
        store_dir.mkdir(exist_ok=True)
        (store_dir / "list.txt").write_text(
            _invoke(["list", "races", "--format=json", "--limit=0", "--results-db", db])
        )
        ids = _race_ids(db)
        with ResultsStore.open(Path(db)) as store:
            for rid in ids:
                race = store.get(rid)
                (store_dir / f"{rid}.results.json").write_text(
                    json.dumps(race.to_dict(), indent=2, sort_keys=True, default=str)
                )
        for rid in ids:
            for fmt in ("text", "markdown", "csv", "json", "html"):
                if fmt == "html":
                    page = store_dir / f"{rid}.page.html"
                    text = _invoke(
                        [
                            "report",
                            rid,
                            "--report-format",
                            fmt,
                            "--results-db",
                            db,
                            "--report-file",
                            str(page),
                        ]
                    )
                    page.write_text(_strip_bundles(page.read_text()))
                    text = text.replace(str(out), "OUT")
                else:
                    text = _invoke(["report", rid, "--report-format", fmt, "--results-db", db])
                (store_dir / f"{rid}.{fmt}").write_text(text)
        for a, b in itertools.pairwise(ids):
            text = _invoke(["compare", "--baseline", a, "--contender", b, "--no-color", "--results-db", db])
            (store_dir / f"compare-{a[:8]}-{b[:8]}.txt").write_text(text)
        print(f"{db}: {len(ids)} races")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
