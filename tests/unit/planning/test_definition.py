"""What keeps a stored race from standing for a point: a changed track, another cluster, another
esbench major version."""

from esbench import __version__
from esbench.planning.definition import RaceDefinition, major
from esbench.records import RaceResult


def stored(**changes: object) -> RaceResult:
    fields: dict = {
        "race_id": "r",
        "timestamp": "2026-11-25T10:00:00Z",
        "track": "t",
        "challenge": "c",
        "track_fingerprint": "f" * 40,
        "cluster_flavor": "elasticsearch",
        "cluster_version": "8.19.0",
        "esbench_version": __version__,
        **changes,
    }
    return RaceResult(**fields)


NOW = RaceDefinition(track_fingerprint="f" * 40, cluster_flavor="elasticsearch", cluster_version="8.19.0")


def test_an_identical_definition_is_reused() -> None:
    assert NOW.differences(stored()) == []


def test_each_difference_is_named() -> None:
    assert NOW.differences(stored(track_fingerprint="e" * 40)) == [
        "the track changed since (content, track params or plugin files)"
    ]
    assert NOW.differences(stored(track_fingerprint=None)) == [
        "it was stored without a track fingerprint (an older esbench)"
    ]
    assert NOW.differences(stored(cluster_version="8.8.2")) == [
        "it ran against elasticsearch 8.8.2, the cluster is now elasticsearch 8.19.0"
    ]
    assert NOW.differences(stored(cluster_flavor="opensearch", cluster_version="2.18.0"))[0].startswith(
        "it ran against opensearch 2.18.0"
    )
    other_major = f"{int(major(__version__)) + 1}.0.0"
    assert NOW.differences(stored(esbench_version=other_major)) == [
        f"it ran with esbench {other_major}, this is {__version__}"
    ]
    # A patch release measures the same way.
    assert NOW.differences(stored(esbench_version=f"{major(__version__)}.99.1")) == []
