"""Options and settings shared by the planning commands (``sweep``, ``optimize``, ``find-max``, ``size``).

:func:`race_options` adds the options of ``esbench race`` that select the track and the cluster;
:func:`base_settings` turns them into the fixed :class:`~esbench.settings.RaceSettings` of a
procedure; :func:`planning_runner` makes the :class:`~esbench.planning.sweep.PointRunner` that runs
or reuses each point's race (see docs/planning.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

from esbench.cli._provision_options import provision_options
from esbench.cli._race_settings import race_settings, track_source_from_options
from esbench.console import Console
from esbench.exceptions import UserError
from esbench.planning.dimensions import Dimension, sweep_id
from esbench.settings import RaceSettings
from esbench.track.overrides import TaskOverride

if TYPE_CHECKING:
    from esbench.planning.sweep import PointRunner

F = TypeVar("F", bound=Callable[..., Any])

#: The option-table entries (:mod:`esbench.cli.options`) a planning command takes, by name.
TABLE_OPTION_NAMES = (
    "track_name",
    "track_path",
    "track_repository",
    "track_revision",
    "track_branch",
    "challenge",
    "target_hosts",
    "pipeline",
    "client_options",
    "include_tasks",
    "exclude_tasks",
    "load_driver_workers",
    "test_mode",
    "user_tag",
    "offline",
    "quiet",
)

#: The planning commands' own options.
_OWN_OPTIONS = (
    click.option("--task", "task", default=None, help="The task to measure (a task of the challenge)."),
    click.option(
        "--time-period",
        type=click.FloatRange(min=0),
        default=None,
        help="Override the task's time-period (s).",
    ),
    click.option(
        "--warmup-time-period",
        type=click.FloatRange(min=0),
        default=None,
        help="Override the task's warmup-time-period (s).",
    ),
    click.option("--fresh", is_flag=True, help="Run every point again instead of reusing stored races."),
)


def race_options(f: F) -> F:
    """Add the race options (track, cluster, provisioning, filters from the option table; --task,
    --fresh...) to a command."""
    from esbench.cli.options import OPTIONS, CliOption, add_option

    for option in reversed(_OWN_OPTIONS):
        f = option(f)
    first: dict[str, CliOption] = {}
    # A name declared for several commands (--quiet: render-track's default differs): the race's entry.
    for entry in sorted(OPTIONS, key=lambda e: "race" not in e.commands):
        first.setdefault(entry.name, entry)
    for name in reversed(TABLE_OPTION_NAMES):
        add_option(f, first[name].click_option())
    return provision_options(f)


def base_settings(
    opts: dict[str, Any], *, track_params: Mapping[str, object]
) -> tuple[RaceSettings, str, Console]:
    """The fixed race settings of a planning command, its task name and console.

    Raises:
        UserError: no or two track options, no --task, bad hosts, tags or client options.
    """
    source = track_source_from_options(opts)
    task = opts.pop("task")
    if not task:
        raise UserError("Give the task to measure with --task=NAME (see 'esbench info' for a track's tasks).")
    override = TaskOverride(
        time_period=opts.pop("time_period"), warmup_time_period=opts.pop("warmup_time_period")
    )
    settings = race_settings(opts, source=source, track_params=track_params, task_overrides={task: override})
    return settings, task, Console(quiet=opts.pop("quiet"))


def planning_runner(
    kind: str,
    base: RaceSettings,
    task: str,
    dimension: Dimension,
    console: Console,
    fresh: bool,
    *,
    param: str = "",
) -> PointRunner:
    """The point runner of a procedure of ``kind`` over ``dimension`` (its sweep id from ``base``)."""
    from esbench.planning.sweep import PointRunner

    return PointRunner(
        task=task,
        kind=kind,
        dimension=dimension,
        param=param,
        sweep=sweep_id(kind, base, task, dimension, param=param),
        fresh=fresh,
        console=console,
    )


PARAMS_OPTION = click.option("--track-params", default="", help="k:v list, inline JSON or a .json file.")


ALLOW_TEST_MODE_OPTION = click.option(
    "--allow-test-mode",
    is_flag=True,
    help="Run with --test-mode anyway, to check that the procedure runs (its answer is not a measurement).",
)


def refuse_test_mode(base: RaceSettings, allow: bool, command: str) -> None:
    """Stop ``optimize``/``find-max`` in test mode before any race unless ``--allow-test-mode``.

    Raises:
        UserError: ``base.test_mode`` without ``allow``.
    """
    if base.test_mode and not allow:
        raise UserError(
            f"{command} with --test-mode would answer from test-mode races (-1k corpora, capped iterations "
            "and time periods: a few requests per point, percentiles of a handful of samples), which "
            "measure nothing. Drop --test-mode for an answer, or add --allow-test-mode to check that the "
            "procedure runs (its answer is then labelled as not a measurement)."
        )
