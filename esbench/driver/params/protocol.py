"""The param-source contract the driver codes against (Rally's, ``esrally/track/params.py``).

Built-in sources (:class:`esbench.driver.params.base.ParamSource` and its subclasses) and the
classes of track plugins meet it structurally; nothing has to inherit from anything.
"""

from __future__ import annotations

from typing import Any, Protocol


class ParamSourceProtocol(Protocol):
    """A param source: one per task in each worker, then one partition per client.

    Required: ``partition(partition_index, total_partitions)`` returns the source of one client of
    the task; ``params()`` returns the params of that client's next request (a dict handed to the
    runner) or raises ``StopIteration`` when the client's share is used up.

    Optional (read with ``getattr``, as Rally does, since plugins may lack them):
    ``infinite`` (bool) or ``size()`` (``int | None``, None = endless) say whether the source ends
    by itself (:func:`esbench.driver.params.base.is_infinite`); ``percent_completed`` (0..1 or
    None) feeds the progress display.
    """

    def partition(self, partition_index: int, total_partitions: int) -> ParamSourceProtocol: ...

    def params(self) -> dict[str, Any]: ...
