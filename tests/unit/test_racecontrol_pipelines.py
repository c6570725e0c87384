"""``esbench list pipelines``: Rally's stable pipelines, which esbench serves, and what to use instead."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from esbench.cli import main
from esbench.console import Console
from esbench.racecontrol import resolve_pipeline
from esbench.racecontrol.pipelines import PIPELINES, pipeline_rows
from esbench.racecontrol.target import DEFAULT_TARGET_HOSTS, provision
from esbench.settings import PIPELINES as SERVED
from esbench.settings import Pipeline, RaceSettings


def test_the_pipelines_esbench_serves_are_the_ones_race_accepts() -> None:
    assert {p.name for p in PIPELINES if p.served} == set(SERVED)


def test_rallys_pipelines_come_in_rallys_order_with_its_descriptions() -> None:
    # esrally/racecontrol.py registers from-sources, from-distribution, benchmark-only (stable) and
    # docker (stable=False).
    assert [p.name for p in PIPELINES] == ["from-sources", "from-distribution", "benchmark-only", "docker"]
    rows = dict(pipeline_rows())
    assert rows["benchmark-only"] == (
        "Assumes an already running Elasticsearch instance, runs a benchmark and reports results"
    )


def test_unserved_pipelines_say_why_and_what_to_use() -> None:
    rows = dict(pipeline_rows())
    assert "Not served by esbench" in rows["from-sources"] and "--distribution-path" in rows["from-sources"]
    assert "Not served by esbench" in rows["docker"] and "--pipeline=benchmark-only" in rows["docker"]
    assert "Not served" not in rows["from-distribution"]


def test_list_pipelines_prints_rallys_table() -> None:
    result = CliRunner().invoke(main, ["list", "pipelines"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Available pipelines:"
    assert lines[2].split() == ["Name", "Description"]
    assert [line.split()[0] for line in lines[4:]] == [p.name for p in PIPELINES]


def test_benchmark_only_without_target_hosts_races_rallys_default_host(tmp_path: Path) -> None:
    # Rally 2.13 racecontrol.set_default_hosts, called by its benchmark_only pipeline.
    settings = RaceSettings(pipeline=Pipeline.BENCHMARK_ONLY)
    assert resolve_pipeline(settings) == Pipeline.BENCHMARK_ONLY
    shown: list[str] = []
    target = provision(settings, resolve_pipeline(settings), tmp_path, _Recording(shown))
    assert target.hosts == DEFAULT_TARGET_HOSTS == ("127.0.0.1:9200",)
    assert target.settings.target_hosts == DEFAULT_TARGET_HOSTS and target.provisioned is None
    assert any("No --target-hosts: racing 127.0.0.1:9200" in line for line in shown), shown
    given = RaceSettings(pipeline=Pipeline.BENCHMARK_ONLY, target_hosts=("10.0.0.1:9200",))
    assert provision(given, resolve_pipeline(given), tmp_path, _Recording(shown)).hosts == ("10.0.0.1:9200",)


class _Recording(Console):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(quiet=True)
        self.lines = lines

    def info(self, message: str) -> None:
        self.lines.append(message)
