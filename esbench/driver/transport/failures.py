"""elastic_transport's exceptions and ``DEFAULT`` timeout sentinel, without importing it up front.

Importing ``elastic_transport`` imports its aiohttp and requests node classes with it (~18 MiB per
process, issue 25), which a worker on the fast path never uses. The fast path still raises
elastic_transport's exceptions (runners, plugins and Rally's code catch them): :func:`module`
imports it on the first failure. Checks ask :func:`is_instance`: an exception cannot be an instance
of a class that was never imported. The fast path's "the transport's own timeout" is
:data:`DEFAULT`; elastic_transport's ``DEFAULT`` means the same wherever a timeout is accepted
(:func:`is_default`).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Final


class DefaultTimeout:
    """The type of :data:`DEFAULT` (one instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<DEFAULT>"

    def __reduce__(self) -> str:
        return "DEFAULT"  # unpickles as this module's singleton


#: "Use the transport's own timeout" (what elastic_transport.client_utils.DEFAULT means).
DEFAULT: Final = DefaultTimeout()


def is_default(timeout: object) -> bool:
    """True if ``timeout`` is :data:`DEFAULT` or elastic_transport's ``DEFAULT`` (that one can only
    exist once elastic_transport is imported)."""
    if timeout is DEFAULT:
        return True
    utils = sys.modules.get("elastic_transport.client_utils")
    return utils is not None and timeout is getattr(utils, "DEFAULT", None)


def module() -> ModuleType:
    """``elastic_transport``, imported now if it was not yet (a failure is being raised)."""
    return importlib.import_module("elastic_transport")


def is_instance(exc: BaseException, *names: str) -> bool:
    """True if ``exc`` is an instance of one of elastic_transport's classes ``names`` (e.g.
    ``"ConnectionError"``); False without importing it when it was never imported."""
    loaded = sys.modules.get("elastic_transport")
    return loaded is not None and isinstance(exc, tuple(getattr(loaded, name) for name in names))
