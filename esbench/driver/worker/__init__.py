"""The load driver's worker side: one event loop per worker running its share of the clients.

The worker process and its messages (:mod:`.process`, :mod:`.loop`), the per-client executor of
the hot path (:mod:`.executor`), schedulers (:mod:`.scheduler`), runners per operation type
(:mod:`.runners`), parameter sources (:mod:`.params`), the registry of a race's runners, param
sources and schedulers (:mod:`.registry`, :mod:`.taskruns`) and how failures are recorded
(:mod:`.outcome`, :mod:`.errors`).

It never imports :mod:`esbench.driver.coordinator` (``.importlinter``).
"""
