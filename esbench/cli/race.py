"""``esbench race``: options → :class:`~esbench.settings.RaceSettings` → :func:`esbench.racecontrol.run_race`.

The command only translates options (declared in the option table, :mod:`esbench.cli.options`);
all behaviour lives in the Python API.
"""

from __future__ import annotations

from typing import Any

import click

from esbench.cli import main
from esbench.cli._osb_names import OSB_RACE_NAMES
from esbench.cli._race_settings import race_settings, track_source_from_options
from esbench.cli.options import table_options
from esbench.console import Console
from esbench.exceptions import UserInterrupted
from esbench.records import STATUS_COMPLETED, STATUS_INTERRUPTED, RaceResult
from esbench.track.params import parse_track_params

#: Exit status of a race that ran but did not complete (a request failure with --on-error=abort,
#: a runner or scheduler that raised, a node that went away): Rally's and OSB's for a subcommand
#: that failed (Rally 2.13 ``esrally/rally.py`` ``main``: ``ExitStatus.ERROR`` exits 64; OSB 2.4.0
#: ``osbenchmark/benchmark.py`` ``main``: a sub-command that did not succeed exits 64), so a CI
#: script that tests for it runs unchanged.
EXIT_RACE_FAILED = 64
#: Exit status of ``--fail-on-error-rate`` (esbench's own gate; Rally has none) when a task's error
#: rate exceeds the limit: the race completed, its report was printed and it is stored.
EXIT_ERROR_RATE = 1


@main.command()
@table_options("race")
def race(track_params: str, quiet: bool, fail_on_error_rate: float | None, **opts: Any) -> None:
    """Run a benchmark (a race) with a Rally track or an OSB workload and print its report."""
    # The driver, the load-driver backends and telemetry are imported when a race runs, not for --help.
    from esbench.racecontrol import run_race
    from esbench.racelog import existing_race_log

    source = track_source_from_options(opts)
    settings = race_settings(
        opts, source=source, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    result = run_race(settings, console=Console(quiet=quiet))
    if result.status == STATUS_INTERRUPTED:
        raise UserInterrupted(f"Race {result.race_id} was interrupted; what it measured is stored.")
    if result.status != STATUS_COMPLETED:
        log = existing_race_log(result.race_id)
        where = f" The race log is {log}." if log is not None else ""
        click.echo(f"[ERROR] Race {result.race_id} did not complete: {result.error}{where}", err=True)
        raise SystemExit(EXIT_RACE_FAILED)
    check_error_rate(result, fail_on_error_rate)


def check_error_rate(result: RaceResult, limit: float | None) -> None:
    """``--fail-on-error-rate=PCT``: exit with :data:`EXIT_ERROR_RATE` when a task of ``result`` (a
    :class:`~esbench.records.RaceResult`) failed more than ``limit`` % of its requests."""
    from esbench.reporting.verdict import worst_error_rate

    worst = worst_error_rate(result) if limit is not None else None
    if worst is not None and limit is not None and worst[1] > limit:
        click.echo(
            f"[ERROR] Task '{worst[0]}' of race {result.race_id} had an error rate of {worst[1]:.2f} %, "
            f"above the {limit:g} % allowed by --fail-on-error-rate.",
            err=True,
        )
        raise SystemExit(EXIT_ERROR_RATE)


# OpenSearch Benchmark's names of the same command (``run`` since OSB 2.0, ``execute-test`` before):
# an OSB user's ``opensearch-benchmark run --workload-path=DIR --test-procedure=...`` runs unchanged
# where its options have Rally's meaning (the option table gives OSB's spellings).
# Called by them, a provisioned cluster is OpenSearch, as OSB provisions it (race_settings), and a
# track name means OSB's workload repository (esbench.cli._osb_names.is_osb_command_line).
for _osb_name in OSB_RACE_NAMES:
    main.add_command(race, name=_osb_name)
