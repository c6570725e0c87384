"""``esbench trend`` over real stored races: 20 short races against a loopback stub whose search
delay is planted (tests/delay_stub.py), then read back from the results store and from a real
Elasticsearch metrics store.

The history (each race: one client, 1.2 s measured after 0.2 s of warmup, in-process worker):

- races 1-10: 10 ms, tags ``step:1`` and ``noise:1``;
- races 11-15: 10 ms, tag ``noise:1``;
- races 16-20: 12 ms, tag ``step:1``.

``--user-tag=step:1`` selects 10 races at 10 ms then 5 at 12 ms: the change must be found at race
11, as a latency rise and a throughput drop. ``--user-tag=noise:1`` selects 15 races at 10 ms:
noise only, no change point.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from delay_stub import delay_stub

from esbench import RaceSettings, run_race
from esbench.adhoc.query import query_track
from esbench.cli import main
from esbench.console import Console
from esbench.driver.settings import DriverSettings
from esbench.records import RaceResult, RaceStatus
from esbench.results.es_export import export_races_esbench_layout
from esbench.results.metrics_store import MetricsStoreSettings

#: Measured against the clock: tests/run runs these alone, after the other tests.
pytestmark = pytest.mark.timing

FAST_S, SLOW_S = 0.010, 0.012

#: ``--min-magnitude`` (%) per metric: a shift smaller than this is not worth a CI failure here. On a
#: shared 2-core machine (load average 5-7 while other test suites ran) the load of other processes
#: moves the races by a few %: real shifts that Otava finds significant (seen among 15 races at
#: 10 ms: latency +2.1 %, p=0.0001; closed-loop throughput -6.2 %, p=0.00025, when the CPU got
#: busier). The planted change is about +19 % latency and -16 % throughput.
MIN_MAGNITUDE = {"latency-p50": "5", "throughput-median": "10"}


def _race(host: str, tags: dict[str, str]) -> RaceResult:
    # workers=0: the worker runs in this process (no process start per race), keeping 20 races
    # within about 40 s.
    base = RaceSettings(target_hosts=(host,), driver=DriverSettings(workers=0), user_tags=tags, offline=True)
    settings = query_track(
        base,
        urls=[f"http://{host}/stub/_search"],
        body=None,
        method=None,
        dictionary=None,
        variables=[],
        clients=1,
        rate=None,
        iterations=None,
        duration=1.2,
        warmup=0.2,
    )
    race = run_race(settings, console=Console(quiet=True))
    assert race.status == RaceStatus.COMPLETED, race.error
    return race


#: The 1-minute load average per core above which closed-loop throughput measures the other
#: processes more than the stub. Five test suites sharing 2 cores (load 8-14) moved single races'
#: throughput by -30 % (66 against 85-93 ops/s) while their latency p50 stayed within 0.3 ms. At a
#: load of 5 (2.5 per core) it once stayed within 3 %: the limit errs on the side of skipping. A CI
#: run (this suite alone) stays below it and asserts throughput too.
BUSY_LOAD_PER_CORE = 2.0


@dataclass(frozen=True)
class History:
    """The results store of the 20 races (see the module doc; and one warm-up race before them), the
    20 races in race order, and the highest 1-minute load average per core seen after a race."""

    db: Path
    races: list[RaceResult]
    busiest: float

    def skip_if_busy(self) -> None:
        if self.busiest > BUSY_LOAD_PER_CORE:
            pytest.skip(
                f"the machine was busy while the races ran (load {self.busiest:.1f} per core): throughput "
                "followed the other processes (latency is asserted regardless)"
            )


@contextmanager
def _priority(increment: int) -> Iterator[None]:
    """Run the block at a higher scheduling priority (``os.nice(increment)``, negative), when allowed.

    On a shared machine the races otherwise measure the other processes: at a load of 13 on 2 cores
    a race at 10 ms read 13.2 ms. The races use little CPU (one client); they only get it when
    they need it. The stub process started inside the block inherits the priority.
    """
    try:
        os.nice(increment)
    except PermissionError:
        yield
        return
    try:
        yield
    finally:
        os.nice(-increment)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    """See :class:`History`."""
    home = tmp_path_factory.mktemp("trend-home")
    races = []
    busiest = 0.0
    with _priority(-10), pytest.MonkeyPatch.context() as mp, delay_stub(FAST_S) as stub:
        mp.setenv("ESBENCH_HOME", str(home))
        # The first race of a process pays one-time costs (seen: 69 ops/s, then 90-94): it is raced
        # and left out of every selection, as each CLI race is a fresh process paying them alike.
        _race(stub.host, {"warmup": "1"})
        for n in range(20):
            stub.set_delay(SLOW_S if n >= 15 else FAST_S)
            tags = {"step": "1", "noise": "1"} if n < 10 else ({"noise": "1"} if n < 15 else {"step": "1"})
            races.append(_race(stub.host, tags))
            busiest = max(busiest, os.getloadavg()[0] / (os.cpu_count() or 1))
    yield History(db=home / "results.db", races=races, busiest=busiest)


def _trend(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["trend", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _detector(metric: str) -> list[str]:
    return [f"--metric={metric}", f"--min-magnitude={MIN_MAGNITUDE[metric]}"]


def _rows(db: Path, metric: str, *args: str) -> list[dict[str, object]]:
    code, out, err = _trend(f"--results-db={db}", "--report-format=json", *_detector(metric), *args)
    assert code == 0, err
    rows: list[dict[str, object]] = json.loads(out)
    return rows


def test_planted_step_is_found_at_race_11(history: History) -> None:
    db, races = history.db, history.races
    latency = _rows(db, "latency-p50", "--user-tag=step:1")
    assert [r["race"] for r in latency] == list(range(1, 16))
    # The stub shaped the values: no answer comes before its delay, and the step is about 2 ms (the
    # driver's overhead on top varies with the machine's load).
    values = [float(str(r["latency_p50"])) for r in latency]
    assert min(values[:10]) >= 10.0 and min(values[10:]) >= 12.0, values
    assert 1.5 <= sum(values[10:]) / 5 - sum(values[:10]) / 10 <= 3.5, values
    changes = {r["race"]: r["change"] for r in latency if r["change"]}
    assert list(changes) == [11], latency
    assert str(changes[11]).startswith("regression +")
    assert latency[10]["race_id"] == races[15].race_id


def test_planted_step_drops_throughput_at_race_11(history: History) -> None:
    history.skip_if_busy()
    throughput = _rows(history.db, "throughput-median", "--user-tag=step:1")
    changes = {r["race"]: r["change"] for r in throughput if r["change"]}
    assert list(changes) == [11], throughput
    assert str(changes[11]).startswith("regression -")


@pytest.mark.parametrize("metric", ["latency-p50", "throughput-median"])
def test_noise_only_has_no_change_point(history: History, metric: str) -> None:
    if metric.startswith("throughput"):
        history.skip_if_busy()
    rows = _rows(history.db, metric, "--user-tag=noise:1")
    assert len(rows) == 15
    assert [r["change"] for r in rows] == [""] * 15, rows


def test_fail_on_change_exit_codes(history: History) -> None:
    db = history.db
    code, out, _ = _trend(
        f"--results-db={db}", "--user-tag=step:1", *_detector("latency-p50"), "--fail-on-change"
    )
    assert code == 3
    assert "Trend verdict: REGRESSION (1 task whose newest races start one):" in out
    assert "latency p50 rose" in out.lower() and "at race 11" in out
    # Without the flag the same finding is shown, and the exit status stays 0.
    code, out, _ = _trend(f"--results-db={db}", "--user-tag=step:1", *_detector("latency-p50"))
    assert code == 0 and "Trend verdict: REGRESSION" in out
    code, out, _ = _trend(
        f"--results-db={db}", "--user-tag=noise:1", *_detector("latency-p50"), "--fail-on-change"
    )
    assert code == 0 and "Trend verdict: no regression" in out
    # The newest 5 races alone (all at 12 ms) have no change: the gate passes.
    code, _, _ = _trend(f"--results-db={db}", "--user-tag=step:1", "--limit=5", "--fail-on-change")
    assert code == 0
    code, _, err = _trend(f"--results-db={db}", "--user-tag=step:none", "--fail-on-change")
    # step:none is Rally's None (kv_to_map), shown as JSON's null.
    assert code == 64 and "No completed stored race matches user tag step=null" in err


def test_html_marks_the_change_point(history: History, tmp_path: Path) -> None:
    db = history.db
    page = tmp_path / "trend.html"
    code, _, err = _trend(
        f"--results-db={db}",
        "--user-tag=step:1",
        *_detector("latency-p50"),
        "--report-format=html",
        f"--report-file={page}",
    )
    assert code == 0, err
    text = page.read_text()
    # plotly.js inlined once, one chart's figure as JSON, nothing fetched
    assert text.count('id="plotly-gz"') == 1 and text.count('class="chart-data"') == 1
    assert "<script src" not in text
    assert '"x0":10.5' in text.replace(" ", "")  # the vertical line before race 11
    assert "regression +" in text and "Trend verdict: REGRESSION" in err


def test_metrics_store_gives_the_same_trend(
    history: History, es_hosts: list[str], metrics_store_prefix: str
) -> None:
    db, races = history.db, history.races
    url = f"http://{es_hosts[0]}"
    export_races_esbench_layout(
        races, MetricsStoreSettings.from_url(url, index_prefix=metrics_store_prefix), refresh=True
    )
    store = [
        "--source=metrics-store",
        f"--metrics-store={url}",
        f"--metrics-store-prefix={metrics_store_prefix}",
    ]
    for metric, tag in (("latency-p50", "step:1"), ("throughput-median", "noise:1")):
        code, out, err = _trend(*store, "--report-format=json", *_detector(metric), f"--user-tag={tag}")
        assert code == 0, err
        assert json.loads(out) == _rows(db, metric, f"--user-tag={tag}")
    # The URL from the environment, as for `esbench export`; the gate fails the same way.
    result = CliRunner().invoke(
        main,
        [
            "trend",
            "--source=metrics-store",
            f"--metrics-store-prefix={metrics_store_prefix}",
            "--user-tag=step:1",
            *_detector("latency-p50"),
            "--fail-on-change",
        ],
        env={"ESBENCH_METRICS_STORE": url},
        catch_exceptions=False,
    )
    assert result.exit_code == 3, result.output
    assert "at race 11" in result.stdout
    # Another prefix holds no race: a user error, not an empty report.
    code, _, err = _trend(
        "--source=metrics-store", f"--metrics-store={url}", "--metrics-store-prefix=nothing-here"
    )
    assert code == 64 and "No completed race is stored" in err
