"""OSB's ``osbenchmark.utils.opts`` (2.4.0): Rally's ``esrally.utils.opts``, which OSB kept."""

from esrally.utils.opts import *  # noqa: F403
