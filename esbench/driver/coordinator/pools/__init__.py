"""Worker pools of the load driver: where the coordinator's workers run.

The coordinator (:mod:`esbench.driver.coordinator.run`) talks to every worker through a
:class:`~esbench.driver.coordinator.pools.base.WorkerHandle` (the pipe protocol of
:mod:`esbench.driver.worker.process`)
and gets its handles from a :class:`~esbench.driver.coordinator.pools.base.WorkerPool`:

* :mod:`esbench.driver.coordinator.pools.local` - worker processes on this host (the default), or one worker
  thread (tests);
* :mod:`esbench.driver.coordinator.pools.ray_pool` - Ray actors spread over a Ray cluster's nodes by CPU, each
  running the same :func:`esbench.driver.worker.process.worker_main` over a TCP connection to the
  coordinator (``pip install "esbench[distributed]"``, see docs/distributed.md).

:func:`esbench.driver.coordinator.pools.factory.create_pool` picks one from the driver settings.
"""
