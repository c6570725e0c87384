"""Race control: the composition root that runs one race through every stage.

Its face is :func:`run_race` (and :func:`resolve_pipeline`, which the planning commands use to tell
which cluster a race will run against). The stages, in the order a race runs them:

============  ==========================================  =====================================
stage         what it does                                module
============  ==========================================  =====================================
prepare       resolve the track source, load the track,   :mod:`esbench.racecontrol.prepare`
              choose the challenge, prepare corpora
provision     start a cluster (``from-distribution``)     :mod:`esbench.racecontrol.target`
connect       product, version, health, stats snapshot    :mod:`esbench.racecontrol.target`
drive         filter the schedule, check requirements,    :mod:`esbench.racecontrol.run`
              run the driver under telemetry
store         results.json, stores, report, last line     :mod:`esbench.racecontrol.store`
============  ==========================================  =====================================
"""

from esbench.racecontrol.run import run_race
from esbench.racecontrol.target import ClusterInfo, resolve_pipeline

__all__ = ["ClusterInfo", "resolve_pipeline", "run_race"]
