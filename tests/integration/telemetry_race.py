"""Session fixture ``telemetry_race``: ONE race on a node esbench provisions, with node-stats and os
telemetry, read by the telemetry test (its stored series, results.json and JSON report), by the
HTML report test (its page in Chromium) and by test_race's from-distribution test (no
``--target-hosts``: a node is provisioned and stopped). Each used to provision a node and race on
its own (~20-25 s each); none changes the race.

The race: ``tests/resources/tracks/compare-tiny`` in test mode (1,000 documents bulk-indexed by
``index-append``, then the throttled ``term-query``), the Maven integ-test distribution
(``ESBENCH_TEST_ES_VERSION``), both devices sampling every 0.25 s, user tag ``case:telemetry-os``,
in its own esbench home (the distribution cache is shared, as for ``es_hosts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from clusters import ES_VERSION
from harness import TRACKS, esbench, ok

TRACK = TRACKS / "compare-tiny"


@dataclass(frozen=True)
class TelemetryRace:
    """The race's esbench home, its JSON report file, what ``esbench race`` wrote to stderr, and the
    race's user tag ``case`` value."""

    home: Path
    report: Path
    stderr: str
    case: str = "telemetry-os"


@pytest.fixture(scope="session")
def telemetry_race(tmp_path_factory: pytest.TempPathFactory) -> TelemetryRace:
    """See the module docstring; tests point ``ESBENCH_HOME`` at ``home`` to read the race."""
    home = tmp_path_factory.mktemp("telemetry-race-home")
    report = home / "report.json"
    result = esbench(
        "race",
        f"--track-path={TRACK}",
        "--test-mode",
        "--distribution-repository=maven",
        f"--distribution-version={ES_VERSION}",
        "--telemetry=node-stats,os",
        "--telemetry-params=node-stats-sample-interval:0.25,os-sample-interval:0.25",
        "--user-tag=case:telemetry-os",
        "--report-format=json",
        f"--report-file={report}",
        home=home,
    )
    ok(result)
    return TelemetryRace(home=home, report=report, stderr=result.stderr)
