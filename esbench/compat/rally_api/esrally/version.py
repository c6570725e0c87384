"""Rally's ``esrally.version``: the Rally API version esbench implements."""

__version__ = "2.13.0"


def release_version() -> str:
    """The Rally release whose plugin API esbench implements."""
    return __version__


def version() -> str:
    return __version__
