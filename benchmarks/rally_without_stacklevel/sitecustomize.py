"""An experiment, not an oracle: Rally with elasticsearch-py's ``warn_stacklevel`` made constant.

Rally 2.13 pins elasticsearch-py 8.6.1, whose API methods call ``warn_stacklevel()`` (an
``inspect.stack()`` that reads the source of every frame) for each deprecation warning: when a call
passes ``params=`` (even empty) or ``body=``. rally-eventdata-track's ``fieldstats`` runner passes
both, so each of its requests pays that in Rally's client. With this directory on PYTHONPATH
(``benchmarks/short_task_throughput.sh`` does it when ``RALLY_WITHOUT_STACKLEVEL=1``), Rally's
processes import elasticsearch-py at start-up and the warnings get stack level 2 instead; nothing
else changes. It shows how much of the difference between Rally's and esbench's short-task
throughput that one cost explains (docs/performance.md, issue 38).
"""

import elasticsearch._sync.client.utils as _utils


def _constant_stacklevel() -> int:
    return 2


_utils.warn_stacklevel = _constant_stacklevel
