"""benchmarks/third_party_track.py: reading a track's smoke-test script, argument errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import third_party_track  # noqa: E402

SMOKE = """#!/usr/bin/env bash
readonly CHALLENGES=(first-one second-one
  third-one)
function run_test {
  for challenge in "${CHALLENGES[@]}"
  do
      esrally race --test-mode --pipeline=benchmark-only --track-path="${PWD}/mytrack" \\
        --track-params="clients:1,size:1MB" --challenge="${challenge}" --on-error=abort
  done
}
"""


def test_reads_the_challenges_and_race_flags_of_a_smoke_test(tmp_path):
    script = tmp_path / "smoke-test.sh"
    script.write_text(SMOKE)
    plan = third_party_track.read_smoke_test(script)
    assert plan.challenges == ("first-one", "second-one", "third-one")
    assert plan.track_path == tmp_path / "mytrack"
    assert plan.track_params == "clients:1,size:1MB"
    assert plan.test_mode is True
    assert plan.on_error == "abort"


def test_a_script_without_a_challenge_list_is_refused(tmp_path):
    script = tmp_path / "smoke-test.sh"
    script.write_text('esrally race --track-path="${PWD}/t"\n')
    with pytest.raises(ValueError, match="CHALLENGES"):
        third_party_track.read_smoke_test(script)


def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys):
    assert third_party_track.main(["--track-path", str(tmp_path), "--challenges", "x"]) == 2
    assert "no track.json" in capsys.readouterr().err
    assert third_party_track.main(["--tools", "esbench,loadgen", "--track-path", str(tmp_path)]) == 2
