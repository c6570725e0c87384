"""Worker pools of the load driver: where the coordinator's workers run.

The coordinator (:mod:`esbench.driver.driver`) talks to every worker through a
:class:`~esbench.driver.pools.base.WorkerHandle` (the pipe protocol of :mod:`esbench.driver.worker`)
and gets its handles from a :class:`~esbench.driver.pools.base.WorkerPool`:

* :mod:`esbench.driver.pools.local` - worker processes on this host (the default), or one worker
  thread (tests);
* :mod:`esbench.driver.pools.ray_pool` - Ray actors spread over a Ray cluster's nodes by CPU, each
  running the same :func:`esbench.driver.worker.worker_main` over a TCP connection to the
  coordinator (``pip install "esbench[distributed]"``, see docs/distributed.md).

:func:`esbench.driver.pools.factory.create_pool` picks one from the driver settings.
"""
