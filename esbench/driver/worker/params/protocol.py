"""The param-source contract the driver codes against (Rally's, ``esrally/track/params.py``).

Built-in sources (:class:`esbench.driver.worker.params.base.ParamSource` and its subclasses) and the
classes of track plugins meet it structurally; nothing has to inherit from anything.
"""

from __future__ import annotations

from typing import Any, Protocol


class ClientParamSource(Protocol):
    """The param source of one client (what ``partition`` returns).

    Required: ``params()`` returns the params of the client's next request (a dict handed to the
    runner) or raises ``StopIteration`` when the client's share is used up.

    Optional (read with ``getattr``, as Rally does, since plugins may lack them):
    ``infinite`` (bool) or ``size()`` (``int | None``, None = endless) say whether the source ends
    by itself (:func:`esbench.driver.worker.params.base.is_infinite`); ``percent_completed`` (0..1 or
    None) feeds the progress display; ``use_body_views()``, called before the first ``params()``
    when the task's runner :attr:`~esbench.driver.worker.runners.base.Runner.takes_body_views`,
    lets the source put read-only ``memoryview`` bodies in its params (the built-in bulk source).
    """

    def params(self) -> dict[str, Any]: ...


class ParamSourceProtocol(ClientParamSource, Protocol):
    """A task's param source: one per task in each worker, then one partition per client.

    ``partition(partition_index, total_partitions)`` returns the :class:`ClientParamSource` of
    client ``partition_index`` of the task's ``total_partitions`` clients (Rally's default source
    returns itself); ``params()`` as for a client's source.
    """

    def partition(self, partition_index: int, total_partitions: int) -> ClientParamSource: ...
