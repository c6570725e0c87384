"""Options of the load driver and of the race itself (Rally's ``--on-error``, ``--load-driver-hosts``,
``--race-id``, ``--kill-running-processes``, ``--enable-driver-profiling``... in ``esrally/rally.py``)."""

from __future__ import annotations

import click

from esbench.cli import _params
from esbench.cli.options.cluster import RACING_ANY
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import PLANNING, RACING
from esbench.driver.settings import LoadDriver, OnError

DRIVER_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="race_id",
        flags=("--race-id",),
        osb=("--test-run-id", "-tid"),
        commands=RACING,
        type=_params.RACE_ID,
        help="Id of the new race [default: a new UUID]; letters, digits, '.', '_' and '-'; "
        "a race with this id must not exist yet.",
        field="RaceSettings.race_id",
    ),
    CliOption(
        name="on_error",
        flags=("--on-error",),
        commands=RACING_ANY,
        type=click.Choice([e.value for e in OnError]),
        default=OnError.CONTINUE.value,
        show_default=True,
        help="What a failed request does: continue, abort the race, or continue-on-network "
        "(abort on network errors only).",
        field="RaceSettings.driver.on_error",
    ),
    CliOption(
        name="fail_on_error_rate",
        flags=("--fail-on-error-rate",),
        commands=RACING_ANY,
        rally=False,
        type=click.FloatRange(min=0, max=100),
        metavar="PCT",
        help="Exit with status 1 when a task's error rate exceeds PCT % (for CI jobs; the race still runs to "
        "the end unless --on-error=abort).",
        field="the race command's exit status (esbench.cli.race.check_error_rate)",
    ),
    CliOption(
        name="load_driver_workers",
        flags=("--load-driver-workers",),
        commands=(*RACING_ANY, *PLANNING),
        rally=False,
        type=click.IntRange(min=1),
        help="Worker processes of the load driver (default: one per core).",
        field="RaceSettings.driver.workers",
    ),
    CliOption(
        name="load_driver",
        flags=("--load-driver",),
        commands=RACING,
        rally=False,
        type=click.Choice([e.value for e in LoadDriver]),
        help="Where the workers run: local processes (default) or a Ray cluster (docs/distributed.md).",
        field="RaceSettings.driver.load_driver",
    ),
    CliOption(
        name="ray_address",
        flags=("--ray-address",),
        commands=RACING,
        rally=False,
        type=_params.RAY_ADDRESS,
        help="HOST:PORT of the Ray head for --load-driver=ray (default: RAY_ADDRESS, else a local Ray).",
        field="RaceSettings.driver.ray_address",
    ),
    CliOption(
        name="load_driver_hosts",
        flags=("--load-driver-hosts",),
        osb=("--worker-ips",),
        commands=RACING,
        default="",
        type=_params.DRIVER_HOSTS,
        help="Rally's option: Ray nodes (IPs or names) that run workers; other hosts imply "
        "--load-driver=ray.",
        field="RaceSettings.driver.load_driver_hosts",
    ),
    CliOption(
        name="enable_assertions",
        flags=("--enable-assertions",),
        commands=RACING,
        kind=Kind.FLAG,
        help="Check the tasks' assertions (e.g. hits > 0) on their responses; a failed one ends the "
        "race (exit 64).",
        field="RaceSettings.driver.enable_assertions",
    ),
    CliOption(
        name="kill_running_processes",
        flags=("--kill-running-processes",),
        osb=("-k",),
        commands=RACING,
        kind=Kind.FLAG,
        help="Before the race, stop every other esbench process of your user and your esbench home on this "
        "machine that runs races (SIGTERM, then SIGKILL after 10 s) and the nodes of installations races "
        "provisioned; other users' processes, other homes' and installations from 'esbench install/start' "
        "are never touched.",
        field="RaceSettings.kill_running_processes",
    ),
    CliOption(
        name="enable_driver_profiling",
        flags=("--enable-driver-profiling",),
        osb=("--enable-worker-coordinator-profiling",),
        commands=RACING,
        kind=Kind.FLAG,
        help="Profile each worker with cProfile and keep the profiles with the race "
        "(<esbench home>/races/<race id>/profiles/worker-<n>.pstats and .txt).",
        field="RaceSettings.driver.profiling",
    ),
)
