"""OSB's --latency-percentiles / --throughput-percentiles / compare --percentiles
(esbench/reporting/percentiles.py), with OpenSearch Benchmark 2.4.0's own functions as the oracle:
its sample-count filter and its percentile rule run in OSB's Python (the venv .ci/run makes) on the
same inputs."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

import pytest

from esbench.cli.options.coverage import OSB, peer_python
from esbench.exceptions import UserError
from esbench.metrics.recorder import new_histogram
from esbench.records import TaskResult
from esbench.reporting.formats import ShowInReport
from esbench.reporting.percentiles import (
    ReportPercentiles,
    latency_percentiles_ms,
    osb_percentiles_for_sample_size,
    parse_percentiles,
    percentile_label,
    throughput_percentiles,
)
from esbench.reporting.summary import task_rows

SIZES = (1, 2, 3, 4, 9, 10, 11, 99, 100, 150, 999, 1000, 5000, 10000, 123456)
WANTED = (
    (50.0, 90.0, 99.0, 99.9, 99.99, 100.0),
    (25.0, 50.0, 75.0, 100.0),
    (50.0, 99.9),
    (10.0, 33.3, 99.95),
    (),
)

# Runs in OSB's Python: OSB's filter and percentile rule on the inputs given as JSON on stdin.
_ORACLE = r"""
import json, sys
from osbenchmark import metrics
from osbenchmark.publisher import comma_separated_string_to_number_list
args = json.load(sys.stdin)
filtered = [
    [float(p) for p in metrics.percentiles_for_sample_size(n, list(wanted) or None)]
    for n, wanted in args["filters"]
]
values = sorted(args["values"])
ranks = [metrics.InMemoryMetricsStore.percentile_value(values, p) for p in args["percentiles"]]
labels = ["%s" % p for p in comma_separated_string_to_number_list(args["label_text"])]
print(json.dumps({"filtered": filtered, "ranks": ranks, "labels": labels}))
"""


@pytest.fixture(scope="module")
def osb_oracle() -> dict[str, object]:
    """OSB's answers for SIZES x WANTED, the percentiles of 1..2000 (odd spacing), and its labels."""
    values = [float(v) ** 1.5 for v in range(1, 2001)]
    payload = {
        "filters": [[n, list(w)] for n in SIZES for w in WANTED],
        "values": values,
        "percentiles": [0.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0],
        "label_text": "50,90.0,99.9,99.99,100",
    }
    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.run(
            [str(peer_python(OSB)), "-c", _ORACLE],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env={**os.environ, "HOME": home},
        )
    answer: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    answer["values"] = values
    return answer


def test_the_sample_count_filter_is_osbs(osb_oracle: dict[str, object]) -> None:
    expected = osb_oracle["filtered"]
    assert isinstance(expected, list)
    mine = [list(osb_percentiles_for_sample_size(n, w)) for n in SIZES for w in WANTED]
    assert mine == expected


def test_labels_are_written_as_osb_writes_them(osb_oracle: dict[str, object]) -> None:
    assert [percentile_label(p) for p in (50.0, 90.0, 99.9, 99.99, 100.0)] == osb_oracle["labels"]


def test_throughput_percentiles_follow_osbs_rank_rule(osb_oracle: dict[str, object]) -> None:
    values = osb_oracle["values"]
    assert isinstance(values, list)
    task = TaskResult(
        task="t",
        operation="t",
        operation_type="search",
        throughput_mean=1.0,
        throughput_windows=tuple(values),
    )
    wanted = (0.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0)
    # 2000 windows: OSB keeps the percentiles whole at 1000 samples (and 25, 75).
    mine = throughput_percentiles(task, wanted)
    expected = dict(zip([percentile_label(p) for p in wanted], osb_oracle["ranks"], strict=True))  # type: ignore[arg-type]
    assert mine.keys() == expected.keys()
    for label, value in mine.items():
        assert value == pytest.approx(expected[label], rel=1e-12)


def _latency_task(values_ms: list[float]) -> TaskResult:
    hist = new_histogram()
    for v in values_ms:
        hist.record_value(int(v * 1000))
    encoded = hist.encode().decode("ascii")
    return TaskResult(
        task="search",
        operation="search",
        operation_type="search",
        throughput_min=10.0,
        throughput_mean=11.0,
        throughput_median=11.0,
        throughput_max=12.0,
        throughput_windows=(10.0, 11.0, 11.0, 12.0),
        latency_ms={"50": 1.0, "90": 2.0, "99": 3.0, "100": 4.0},
        service_time_ms={"50": 1.0, "100": 4.0},
        sample_count=len(values_ms),
        histograms={"latency": encoded, "service_time": encoded},
    )


def test_latency_percentiles_are_recomputed_from_the_histogram_as_osb_computes_them(
    osb_oracle: dict[str, object],
) -> None:
    values = osb_oracle["values"]
    assert isinstance(values, list)
    task = _latency_task(values)
    got = latency_percentiles_ms(task, (50.0, 99.9))
    expected = dict(zip(["0", "25", "50", "90", "99", "99.9", "100"], osb_oracle["ranks"], strict=True))  # type: ignore[arg-type]
    assert set(got) == {"50", "99.9"}
    # The histogram keeps 3 significant digits (values are stored to the microsecond).
    assert got["50"] == pytest.approx(expected["50"], rel=2e-3)
    assert got["99.9"] == pytest.approx(expected["99.9"], rel=2e-3)


def test_a_percentile_the_sample_count_does_not_allow_is_left_out_or_shown_empty() -> None:
    task = _latency_task([float(v) for v in range(1, 101)])  # 100 samples: no 99.9
    wanted = ReportPercentiles(latency=(50.0, 99.9))
    rows = [r for r in task_rows(task, percentiles=wanted) if "latency" in r[0]]
    assert [r[0] for r in rows] == ["50th percentile latency"]
    shown = [
        r for r in task_rows(task, percentiles=wanted, show=ShowInReport.ALL_PERCENTILES) if "latency" in r[0]
    ]
    assert [(r[0], r[2]) for r in shown][1] == ("99.9th percentile latency", None)


def test_the_rows_of_a_task_with_osbs_percentiles() -> None:
    task = _latency_task([float(v) for v in range(1, 1001)])
    rows = task_rows(task, percentiles=ReportPercentiles(latency=(99.9, 50.0), throughput=(50.0,)))
    names = [r[0] for r in rows]
    # Throughput percentiles after Max Throughput; the latency rows are the wanted ones, ascending;
    # service time keeps Rally's rows.
    assert names == [
        "Min Throughput",
        "Mean Throughput",
        "Median Throughput",
        "Max Throughput",
        "50th percentile throughput",
        "50th percentile latency",
        "99.9th percentile latency",
        "50th percentile service time",
        "100th percentile service time",
        "error rate",
    ]
    assert rows[4][3] == task.throughput_unit
    # Without the options: Rally's rows, as stored.
    default = [r[0] for r in task_rows(task) if "latency" in r[0]]
    assert default == [f"{p}th percentile latency" for p in ("50", "90", "99", "100")]


def test_a_race_stored_without_histograms_keeps_the_stored_values_it_has() -> None:
    task = TaskResult(task="t", operation="t", operation_type="search", latency_ms={"50": 1.5, "99": 9.0})
    assert latency_percentiles_ms(task, (50.0, 99.9)) == {"50": 1.5}


@pytest.mark.parametrize(
    ("text", "expected"), [("50,99.9", (50.0, 99.9)), ("", ()), (" 0 , 100 ", (0.0, 100.0))]
)
def test_parse_percentiles(text: str, expected: tuple[float, ...]) -> None:
    assert parse_percentiles(text, option="--latency-percentiles") == expected


@pytest.mark.parametrize("text", ["fifty", "100.5", "-1", "nan"])
def test_parse_percentiles_refuses_what_is_not_a_percentile(text: str) -> None:
    with pytest.raises(UserError, match="--latency-percentiles"):
        parse_percentiles(text, option="--latency-percentiles")


def test_compare_percentiles_choose_the_compared_timing_rows() -> None:
    from esbench.records import RaceResult
    from esbench.reporting.compare import Side, compare_races

    def race(race_id: str, scale: float) -> RaceResult:
        task = _latency_task([v * scale for v in range(1, 1001)])
        return RaceResult(
            race_id=race_id, timestamp="2026-11-28T00:00:00Z", track="t", challenge="c", tasks=(task,)
        )

    base, cont = Side(label="a", races=(race("a", 1.0),)), Side(label="b", races=(race("b", 2.0),))
    (default,) = compare_races(base, [cont]).contenders
    (chosen,) = compare_races(base, [cont], percentiles=(50.0, 99.9)).contenders
    latency = [r.metric for r in chosen.rows if r.metric.endswith("latency")]
    assert latency == ["50th percentile latency", "99.9th percentile latency"]
    assert [r.metric for r in default.rows if r.metric.endswith("latency")] == [
        f"{p}th percentile latency" for p in ("50", "90", "99", "100")
    ]
    p999 = next(r for r in chosen.rows if r.metric == "99.9th percentile latency")
    assert p999.baseline is not None and p999.contender is not None
    # The contender's latencies are twice the baseline's.
    assert p999.contender.value == pytest.approx(2 * p999.baseline.value, rel=3e-3)
