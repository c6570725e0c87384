"""The load driver's coordinator: one per race, in the esbench process.

It turns a challenge's schedule into steps of per-worker client allocations (:mod:`.allocator`,
Rally's ``Allocator``), checks the tasks before the first request (:mod:`.checks`), selects tasks
(:mod:`.filters`), starts the worker pool (:mod:`.pools`: local processes or Ray actors) and
follows each step to its end (:mod:`.steps`, :mod:`.run`), merging what the workers measured.

It talks to workers only through the messages of :mod:`esbench.driver.worker`.
"""
