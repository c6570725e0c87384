"""Whether esbench uses its optional C extensions (the driver's hot path; see setup.py).

Each extension has a pure-Python twin with the same behaviour, used where the extension was not
built (``pip install`` on a machine without a C compiler) or when the environment variable
``ESBENCH_PURE_PYTHON`` is set to a non-empty value other than ``0`` (to compare the two, or to
debug the Python one). ``esbench --version`` says which is in use.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

#: The extension modules. Their Python twins: ``esbench.metrics.accumulator`` for
#: ``_accumulator``; ``esbench.driver.transport.connectioncore``, ``http.PyRawResponse`` and
#: ``timing.PyRequestTiming`` for ``_connection``; ``esbench.corpus.lines`` (``py_nth_newline``,
#: ``py_prefix_lines``) for ``_lines``.
EXTENSIONS = ("esbench.metrics._accumulator", "esbench.driver.transport._connection", "esbench.corpus._lines")


def pure_python_requested() -> bool:
    """True if ``ESBENCH_PURE_PYTHON`` asks for the Python twins."""
    return os.environ.get("ESBENCH_PURE_PYTHON", "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """The extension module ``name`` (one of :data:`EXTENSIONS`), or None if it is not built or
    the Python twins were asked for."""
    if pure_python_requested():
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def status() -> str:
    """One line for ``esbench --version``: which hot-path implementation is in use."""
    if pure_python_requested():
        return "hot path: pure Python (ESBENCH_PURE_PYTHON is set)"
    missing = [name for name in EXTENSIONS if load(name) is None]
    if not missing:
        return "hot path: C extensions"
    return f"hot path: pure Python for {', '.join(missing)} (not built: no C compiler at install?)"
