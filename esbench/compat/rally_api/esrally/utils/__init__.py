"""Rally's ``esrally.utils``: ``io``, ``net`` and ``opts`` for plugins."""

from esrally.utils import io, net, opts  # noqa: F401
