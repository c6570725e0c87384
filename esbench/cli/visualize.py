"""``esbench visualize``: OSB's command that writes the HTML charts of a stored test run (race).

OSB 2.4.0 (``osbenchmark/benchmark.py`` ``dispatch_visualize``) renders the run's HTML report into
its test run directory and, with ``--output-path``, copies it there. esbench writes its HTML race
report (:func:`esbench.reporting.html.write_race_report`, the page ``esbench report
--report-format=html`` writes) to ``--output-path``, by default ``report.html`` in the race's
directory under <esbench home>/races.
"""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import main
from esbench.cli.options import table_options


@main.command("visualize")
@table_options("visualize")
def visualize_command(test_run_id: str, output_path: Path | None, quiet: bool, offline: bool) -> None:
    """Write the HTML charts of a stored race (OSB's visualize)."""
    from esbench.home import home_subdir
    from esbench.reporting.html import write_race_report
    from esbench.results.store import ResultsStore

    with ResultsStore.open() as store:
        race = store.get(test_run_id)
    path = output_path or home_subdir("races") / race.race_id / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_race_report(race, fmt="html", path=path)
    if not quiet:
        click.echo(f"HTML report of race {race.race_id} written to {path}", err=True)
