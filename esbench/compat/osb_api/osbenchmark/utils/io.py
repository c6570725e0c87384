"""OSB's ``osbenchmark.utils.io`` (2.4.0): Rally's ``esrally.utils.io``, which OSB kept."""

from esrally.utils.io import *  # noqa: F403
