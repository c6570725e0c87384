"""esbench's stand-in for Rally's ``esrally`` package: the names track plugins import.

Only used when the real Rally is not installed (see ``esbench.compat.shim``). Supported modules and
their Rally sources are listed in docs/tracks.md ("Rally plugin API").
"""

from esrally import exceptions, utils  # noqa: F401  (plugins use esrally.utils.net.* after "import esrally")

__version__ = "2.13.0"
PROGRAM_NAME = "esbench"
DOC_LINK = "https://esrally.readthedocs.io/en/2.13.0/"
