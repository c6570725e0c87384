"""OSB's ``osbenchmark.utils.net`` (2.4.0): Rally's ``esrally.utils.net``, which OSB kept."""

from esrally.utils.net import *  # noqa: F403
