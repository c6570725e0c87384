"""Compare what a track needs (:mod:`.needs`) with what a cluster has (:mod:`.probe`), before a race.

A race whose track needs a module the cluster lacks would otherwise fail half way, with HTTP 400s
from ``put-pipeline``, ``create-index`` or a scripted search. The check runs after the cluster is
reachable and before the first task, and follows ``--on-error`` as the race's requests do: with
``continue`` (the default, as in Rally) it prints one warning paragraph naming each missing module,
what needs it, and the tasks whose requests will fail, then the race runs and those requests are
recorded as failed (Rally 2.13 has no such check: it just records the failures); with ``abort`` the
same paragraph is an error and nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from esbench.driver.settings import OnError
from esbench.driver.transport.client import ClientOptions
from esbench.exceptions import ConfigError
from esbench.requirements.needs import UNKNOWN_MODULE, Need, track_needs
from esbench.requirements.probe import ClusterCapabilities, probe_cluster
from esbench.track.model import Task, Track

#: At most this many uses are listed per missing module; the rest are counted.
MAX_USES_SHOWN = 6


class MissingModules(ConfigError):
    """The cluster lacks modules (or ingest processors) that the track's tasks need."""


@dataclass(frozen=True, kw_only=True)
class Missing:
    """One missing module and every use of it: ``module`` as in ``GET _nodes/plugins``, ``needs`` in
    track order."""

    module: str
    needs: tuple[Need, ...]


@dataclass(frozen=True, kw_only=True)
class RequirementsReport:
    """The outcome of a check: every need, the missing ones grouped by module, and the cluster."""

    needs: tuple[Need, ...]
    missing: tuple[Missing, ...]
    capabilities: ClusterCapabilities

    @property
    def ok(self) -> bool:
        """True when the cluster has everything the track needs."""
        return not self.missing


def is_present(need: Need, capabilities: ClusterCapabilities) -> bool:
    """Whether the cluster satisfies ``need``: ingest processors by the cluster's own processor list
    (exact, also for processors of third-party plugins), everything else by module or plugin name."""
    if need.processor is not None:
        return need.processor in capabilities.processors
    return capabilities.has_module(need.module)


def check_requirements(needs: Sequence[Need], capabilities: ClusterCapabilities) -> RequirementsReport:
    """Group the needs the cluster does not satisfy by module (modules in order of first use)."""
    grouped: dict[str, list[Need]] = {}
    for need in needs:
        if not is_present(need, capabilities):
            grouped.setdefault(need.module, []).append(need)
    missing = tuple(Missing(module=m, needs=tuple(n)) for m, n in grouped.items())
    return RequirementsReport(needs=tuple(needs), missing=missing, capabilities=capabilities)


def missing_paragraph(report: RequirementsReport, *, hint: str) -> str:
    """One paragraph: which modules the cluster lacks, and for each, what uses it where.

    Example: ``The cluster (Elasticsearch 8.19.0, 1 node) lacks modules the track needs: ingest-common
    (ingest processor 'set' in task 'put-pipeline'); lang-painless (painless script in task
    'scripted'). <hint>``
    """
    caps = report.capabilities
    cluster = f"Elasticsearch {caps.version}" if caps.version else "Elasticsearch"
    nodes = f"{caps.nodes} node{'s' if caps.nodes != 1 else ''}"
    parts = []
    for missing in report.missing:
        uses = [f"{n.feature} in {n.where}" for n in missing.needs]
        shown = "; ".join(uses[:MAX_USES_SHOWN])
        if len(uses) > MAX_USES_SHOWN:
            shown += f"; and {len(uses) - MAX_USES_SHOWN} more"
        label = "no module (a plugin?)" if missing.module == UNKNOWN_MODULE else missing.module
        parts.append(f"{label} ({shown})")
    return f"The cluster ({cluster}, {nodes}) lacks modules the track needs: {'; '.join(parts)}. {hint}"


#: The advice of the race's paragraph under ``--on-error=abort``.
RACE_HINT = (
    "Benchmark a cluster that has these modules (without --target-hosts, esbench installs the full "
    "default distribution with --distribution-repository=elastic), leave the tasks out with "
    "--exclude-tasks, or drop --on-error=abort to race anyway and record their requests as failed."
)

#: The end of the warning when the race runs anyway (``--on-error=continue``, the default).
RACE_CONTINUE_HINT = (
    "The race runs anyway (--on-error=continue): their requests will fail and count in their error "
    "rate. Pass --on-error=abort to refuse such a race, or leave the tasks out with --exclude-tasks."
)


def failing_tasks(track: Track, tasks: Sequence[Task], capabilities: ClusterCapabilities) -> tuple[str, ...]:
    """Names of the ``tasks`` (in order) that use something the cluster lacks: a task that creates an
    index or template needing a missing analyzer counts as well as one whose operation needs a module."""
    return tuple(
        task.name
        for task in tasks
        if any(not is_present(need, capabilities) for need in track_needs(track, tasks=[task]))
    )


def verify_race_requirements(
    *,
    track: Track,
    tasks: Sequence[Task],
    hosts: Sequence[str],
    client_options: ClientOptions,
    on_error: OnError,
    warn: Callable[[str], object],
) -> RequirementsReport:
    """The pre-race check: probe the cluster, compare with the tasks' needs, refuse or warn.

    Args:
        track: the loaded track.
        tasks: the tasks that will run (after ``--include-tasks``/``--exclude-tasks``).
        hosts: ``host:port`` of the cluster.
        client_options: credentials and TLS settings.
        on_error: the race's ``--on-error``: ``abort`` refuses a race that misses a module,
            ``continue`` warns (naming the tasks that will fail) and lets it run.
        warn: receives the paragraph under ``continue``.

    Returns:
        The report (also when modules are missing under ``continue``).

    Raises:
        MissingModules: a module is missing and ``on_error`` is ``abort``.
        ConnectionFailed: the cluster cannot be asked for its modules.
    """
    report = check_requirements(track_needs(track, tasks=tasks), probe_cluster(hosts, client_options))
    if report.ok:
        return report
    if OnError(on_error) is OnError.ABORT:
        raise MissingModules(missing_paragraph(report, hint=RACE_HINT))
    failing = ", ".join(f"'{name}'" for name in failing_tasks(track, tasks, report.capabilities))
    warn(missing_paragraph(report, hint=f"Tasks whose requests will fail: {failing}. {RACE_CONTINUE_HINT}"))
    return report
