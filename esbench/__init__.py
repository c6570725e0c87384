"""esbench: a fast, exact, Rally-compatible benchmark harness for Elasticsearch.

The public Python API (the CLI is a thin layer over it)::

    from esbench import RaceSettings, run_race, load_track

    track = load_track(name="eventdata", params={"doc_count": 100_000})
    result = run_race(RaceSettings(track_name="eventdata", target_hosts=("127.0.0.1:9200",)))

Names are imported lazily so that ``import esbench`` (and the CLI's start-up) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports
from esbench.version import __version__

_EXPORTS = {
    "EsbenchError": "esbench.exceptions",
    "Track": "esbench.track.model",
    "load_track": "esbench.track.loader",
    "render_track_source": "esbench.track.loader",
    "RaceSettings": "esbench.settings",
    "run_race": "esbench.racecontrol",
    "RaceResult": "esbench.records",
    "TaskResult": "esbench.records",
    "ResultsStore": "esbench.results.store",
    "Registry": "esbench.driver.worker.registry",
    "default_registry": "esbench.compat.host",
    "ProvisionSettings": "esbench.provision.settings",
    "provision_cluster": "esbench.provision.provisioned",
}

__all__ = [
    "EsbenchError",
    "ProvisionSettings",
    "RaceResult",
    "RaceSettings",
    "Registry",
    "ResultsStore",
    "TaskResult",
    "Track",
    "__version__",
    "default_registry",
    "load_track",
    "provision_cluster",
    "render_track_source",
    "run_race",
]

if TYPE_CHECKING:
    from esbench.compat.host import default_registry
    from esbench.driver.worker.registry import Registry
    from esbench.exceptions import EsbenchError
    from esbench.provision.provisioned import provision_cluster
    from esbench.provision.settings import ProvisionSettings
    from esbench.racecontrol import run_race
    from esbench.records import RaceResult, TaskResult
    from esbench.results.store import ResultsStore
    from esbench.settings import RaceSettings
    from esbench.track.loader import load_track, render_track_source
    from esbench.track.model import Track


__getattr__, _ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return __all__
