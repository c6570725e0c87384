"""create-track's suggested track params fit the source cluster (issue 26): an index whose replicas
cannot all be assigned makes the default challenge wait for yellow instead of forever for green."""

from __future__ import annotations

from pathlib import Path

from esbench.tracker.fit import CreatedTrack, fitting_params


def test_one_node_and_one_replica_waits_for_yellow() -> None:
    params, reason = fitting_params(
        {"number_of_nodes": 1, "number_of_data_nodes": 1}, {"logs": {"number_of_replicas": "1"}}
    )
    assert params == {"cluster_health": "yellow"}
    assert "1 data node(s)" in reason and "logs (1 replica(s))" in reason


def test_enough_data_nodes_or_auto_expand_keep_the_defaults() -> None:
    assert fitting_params({"number_of_data_nodes": 2}, {"logs": {"number_of_replicas": "1"}}) == ({}, "")
    assert fitting_params({"number_of_data_nodes": 1}, {"logs": {"number_of_replicas": "0"}}) == ({}, "")
    auto = {"number_of_replicas": "1", "auto_expand_replicas": "0-1"}
    assert fitting_params({"number_of_data_nodes": 1}, {"logs": auto}) == ({}, "")


def test_the_race_command_carries_hosts_and_params_without_credentials() -> None:
    created = CreatedTrack(
        root=Path("/tmp/my track"), indices=("logs",), track_params={"cluster_health": "yellow"}
    )
    command = created.race_command(["https://elastic:secret@127.0.0.1:9200"])
    assert command == (
        "esbench race '--track-path=/tmp/my track' --target-hosts=https://127.0.0.1:9200 "
        "--track-params=cluster_health:yellow"
    )
    assert CreatedTrack(root=Path("/t"), indices=("x",)).race_command(["127.0.0.1:9200"]) == (
        "esbench race --track-path=/t --target-hosts=127.0.0.1:9200"
    )
