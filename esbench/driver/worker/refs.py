"""Import what a descriptor of :mod:`esbench.track.optable` names as ``"module:attribute"``.

The track layer cannot import the driver, so the table of operation types names runners and param
sources as strings; the driver resolves them here when it builds a registry.
"""

from __future__ import annotations

import importlib
from typing import Any


def resolve(ref: str) -> Any:
    """The object ``ref`` names: ``"esbench.driver.worker.runners.bulk:Bulk"`` -> the class.

    Raises:
        ValueError: ``ref`` is not ``module:attribute``.
        ImportError: the module cannot be imported.
        AttributeError: the module has no such attribute.
    """
    module_name, sep, attribute = ref.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"'{ref}' is not a 'module:attribute' reference.")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError:
        message = f"module '{module_name}' has no attribute '{attribute}' (named by '{ref}')"
        raise AttributeError(message) from None
