"""Whether esbench uses its optional C extensions (the driver's hot path; see setup.py).

Each extension has a pure-Python twin with the same behaviour, used where the extension was not
built (``pip install`` on a machine without a C compiler), when the environment variable
``ESBENCH_PURE_PYTHON`` is set to a non-empty value other than ``0`` (to compare the two, or to
debug the Python one), or when the built extension is *stale*: in a checkout, its sources changed
after it was built (a ``git pull`` without ``pip install -e .``). A stale ``.so`` would otherwise run
old C against new Python and fail deep in a race with an ``AttributeError``; instead esbench warns
once, names the rebuild command and runs the Python twin. ``esbench --version`` says which is in
use.

This module imports only the standard library: ``setup.py`` loads it by path, without importing
esbench, to take the extension list and the digest from here (one home for both).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExtensionSpec:
    """One C extension module: its import name and its files, relative to the checkout's root.

    Attributes:
        name: the module's import name, e.g. ``esbench.metrics._accumulator``.
        sources: the ``.c`` files compiled into it.
        depends: the headers it includes (a change to them changes the module too).
    """

    name: str
    sources: tuple[str, ...]
    depends: tuple[str, ...]

    @property
    def files(self) -> tuple[str, ...]:
        """Every file the built module depends on, sources first."""
        return self.sources + self.depends


#: The extension modules. Their Python twins: ``esbench.metrics.accumulator`` for
#: ``_accumulator``; ``esbench.driver.transport.connectioncore``, ``http.PyRawResponse``,
#: ``timing.PyRequestTiming`` and ``repeat.PyRepeat`` for ``_connection``; ``esbench.corpus.lines``
#: (``py_nth_newline``, ``py_prefix_lines``) for ``_lines``.
EXTENSION_SPECS: tuple[ExtensionSpec, ...] = (
    ExtensionSpec(
        name="esbench.metrics._accumulator",
        sources=tuple(f"esbench/metrics/{n}.c" for n in ("_accumulator", "_phase", "_record")),
        depends=("esbench/_capi.h", "esbench/metrics/_accumulator.h"),
    ),
    ExtensionSpec(
        name="esbench.driver.transport._connection",
        sources=tuple(
            f"esbench/driver/transport/{n}.c"
            for n in ("_connection", "_received", "_prepared", "_repeat", "_response", "_timing")
        ),
        depends=("esbench/_capi.h", "esbench/driver/transport/_connection.h"),
    ),
    ExtensionSpec(
        name="esbench.corpus._lines", sources=("esbench/corpus/_lines.c",), depends=("esbench/_capi.h",)
    ),
)

EXTENSIONS = tuple(spec.name for spec in EXTENSION_SPECS)

#: The C macro (and the module's ``SOURCE_DIGEST`` string) that carries the digest of the sources
#: an extension was built from.
DIGEST_MACRO = "ESBENCH_SOURCE_DIGEST"

#: The checkout's root: the directory holding ``esbench/`` (in an installed wheel it holds no ``.c``
#: files, and no staleness check applies).
_ROOT = Path(__file__).resolve().parent.parent


def source_digest(spec: ExtensionSpec, root: Path | None = None) -> str | None:
    """The SHA-256 (first 16 hex digits) of ``spec``'s files (each file's relative path and
    bytes, in order) under ``root`` (default: this checkout), or None when a file is absent (an
    installed package ships no C sources).
    ``setup.py`` builds it into the module; :func:`load` compares."""
    base = _ROOT if root is None else root
    digest = hashlib.sha256()
    for relative in spec.files:
        try:
            content = (base / relative).read_bytes()
        except OSError:
            return None
        digest.update(relative.encode() + b"\0" + content + b"\0")
    return digest.hexdigest()[:16]


def pure_python_requested() -> bool:
    """True if ``ESBENCH_PURE_PYTHON`` asks for the Python twins."""
    return os.environ.get("ESBENCH_PURE_PYTHON", "") not in ("", "0")


def _spec(name: str) -> ExtensionSpec:
    for spec in EXTENSION_SPECS:
        if spec.name == name:
            return spec
    raise KeyError(f"{name} is not one of esbench's C extensions {EXTENSIONS}")


@cache
def _stale(name: str, built: str | None) -> bool:
    """The built module (digest ``built``) is older than the checkout's sources; warns once."""
    current = source_digest(_spec(name))
    if current is None or built == current:
        return False
    logger.warning(
        "%s was built from other sources than this checkout's (a pull without a rebuild?): running its "
        "pure-Python twin, which is slower. Rebuild with `pip install -e .` or `python setup.py "
        "build_ext --inplace`.",
        name,
    )
    return True


def load(name: str) -> ModuleType | None:
    """The extension module ``name`` (one of :data:`EXTENSIONS`), or None if it is not built, is
    stale (its checkout's sources changed since it was built), or the Python twins were asked for.

    Raises:
        KeyError: ``name`` is not one of :data:`EXTENSIONS`.
    """
    if pure_python_requested():
        return None
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None
    if _stale(name, getattr(module, "SOURCE_DIGEST", None)):
        return None
    return module


def status() -> str:
    """One line for ``esbench --version``: which hot-path implementation is in use."""
    if pure_python_requested():
        return "hot path: pure Python (ESBENCH_PURE_PYTHON is set)"
    missing = [name for name in EXTENSIONS if load(name) is None]
    if not missing:
        return "hot path: C extensions"
    stale = [name for name in missing if _importable(name)]
    reasons = []
    if stale:
        reasons.append(f"{', '.join(stale)} built from older sources: rebuild with `pip install -e .`")
    absent = [name for name in missing if name not in stale]
    if absent:
        reasons.append("not built: no C compiler at install?")
    return f"hot path: pure Python for {', '.join(missing)} ({'; '.join(reasons)})"


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True
