"""The load driver's transport: how one client talks to the cluster.

The HTTP stack of the hot path (:mod:`.rawhttp`, :mod:`.rawconnection`, :mod:`.connectioncore`
and its C twin ``_connection``; see CONTRIBUTING.md, "C twins"), the elasticsearch-py client
factory and ``--client-options`` (:mod:`.client`, :mod:`.client_checks`), the runner-facing HTTP
seam (:mod:`.http`), service-time measurement (:mod:`.timing`), client-side document routing
(:mod:`.routing`, :mod:`.shardmap`) and the target's product and version (:mod:`.target`).

It knows nothing of schedules, tasks or workers: :mod:`esbench.driver.worker` and
:mod:`esbench.driver.coordinator` import it, never the reverse (``.importlinter``).
"""
