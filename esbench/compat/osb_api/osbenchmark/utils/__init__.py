"""OSB's ``osbenchmark.utils``: ``io``, ``net``, ``opts`` (Rally's) and ``parse`` for plugins."""

from osbenchmark.utils import io, net, opts, parse  # noqa: F401
