"""Compare what a track needs (:mod:`.needs`) with what a cluster has (:mod:`.probe`), before a race.

A race whose track needs a module the cluster lacks would otherwise fail half way, with HTTP 400s
from ``put-pipeline``, ``create-index`` or a scripted search. The check runs after the cluster is
reachable and before the first task: by default a missing module ends the race at once with one
paragraph naming each missing module and the task or index that needs it; with the ``warn`` policy
(``--on-error=continue`` given on the command line) the paragraph is a warning and the race runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from esbench.driver.client import ClientOptions
from esbench.exceptions import ConfigError
from esbench.requirements.needs import UNKNOWN_MODULE, Need, track_needs
from esbench.requirements.probe import ClusterCapabilities, probe_cluster
from esbench.track.model import Task, Track

#: At most this many uses are listed per missing module; the rest are counted.
MAX_USES_SHOWN = 6


class RequirementsPolicy(StrEnum):
    """What a race does when the cluster lacks a module the track needs."""

    FAIL = "fail"
    WARN = "warn"


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


#: The advice of the race's paragraph.
RACE_HINT = (
    "Benchmark a cluster that has these modules (without --target-hosts, esbench installs the full "
    "default distribution with --distribution-repository=elastic), leave the tasks out with "
    "--exclude-tasks, or pass --on-error=continue to race anyway."
)

#: The advice of the warning when the race runs anyway.
RACE_CONTINUE_HINT = (
    "The race runs anyway (--on-error=continue): the requests that need these modules will fail and "
    "show up as errors."
)


def verify_race_requirements(
    *,
    track: Track,
    tasks: Sequence[Task],
    hosts: Sequence[str],
    client_options: ClientOptions,
    policy: str,
    warn: Callable[[str], object],
) -> RequirementsReport:
    """The pre-race check: probe the cluster, compare with the tasks' needs, fail or warn.

    Args:
        track: the loaded track.
        tasks: the tasks that will run (after ``--include-tasks``/``--exclude-tasks``).
        hosts: ``host:port`` of the cluster.
        client_options: credentials and TLS settings.
        policy: a :class:`RequirementsPolicy` value.
        warn: receives the paragraph under the ``warn`` policy.

    Returns:
        The report (also when modules are missing under ``warn``).

    Raises:
        MissingModules: a module is missing and the policy is ``fail``.
        ConnectionFailed: the cluster cannot be asked for its modules.
    """
    report = check_requirements(track_needs(track, tasks=tasks), probe_cluster(hosts, client_options))
    if report.ok:
        return report
    if RequirementsPolicy(policy) is RequirementsPolicy.FAIL:
        raise MissingModules(missing_paragraph(report, hint=RACE_HINT))
    warn(missing_paragraph(report, hint=RACE_CONTINUE_HINT))
    return report
