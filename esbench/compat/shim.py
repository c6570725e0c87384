"""Make ``import esrally`` (and ``import osbenchmark``) work for track and workload plugins without
installing Rally or OpenSearch Benchmark.

Mechanism: :func:`install` appends a finder to the *end* of ``sys.meta_path`` that answers only for
the top-level names ``esrally`` (the package in ``esbench/compat/rally_api/esrally``) and
``osbenchmark`` (``esbench/compat/osb_api/osbenchmark``, which builds on the ``esrally`` one); their
submodules are then found through the package's ``__path__`` as usual. Because the finder comes
after Python's own path finder, an installed Rally (``pip install esrally``) or OSB always wins, and
nothing is added to ``sys.path``, so no other name becomes importable. esbench installs it
before it imports a track plugin (coordinator and worker processes alike); importing esbench
itself never does.

Why not an ``esrally`` package at the top level of the distribution: it would shadow or clash with
a real Rally installed in the same environment, and it would be importable by everything, not just
by plugins.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The directory holding the ``esrally`` compatibility package.
API_ROOT = Path(__file__).resolve().parent / "rally_api"
#: The directory holding the ``osbenchmark`` compatibility package.
OSB_API_ROOT = Path(__file__).resolve().parent / "osb_api"
#: Top-level package name -> the directory that holds esbench's stand-in for it.
_ROOTS = {"esrally": API_ROOT, "osbenchmark": OSB_API_ROOT}


class _EsrallyFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        root = _ROOTS.get(fullname)
        if root is None:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [str(root)])


_FINDER = _EsrallyFinder()


def install() -> None:
    """Append the ``esrally`` finder to ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, _EsrallyFinder) for f in sys.meta_path):
        sys.meta_path.append(_FINDER)


def uses_compat_api(package: str = "esrally") -> bool:
    """True if ``import esrally`` (or ``package``: ``osbenchmark``) resolves (or resolved) to
    esbench's compatibility package."""
    root = _ROOTS[package]
    module = sys.modules.get(package)
    if module is not None:
        return Path(getattr(module, "__file__", "") or "").resolve().is_relative_to(root)
    spec = importlib.util.find_spec(package)
    return spec is not None and Path(spec.origin or "").resolve().is_relative_to(root)


def unsupported_import(exc: ImportError) -> str | None:
    """What a plugin tried to import from Rally (or OSB) that esbench does not provide, or None when
    the error is about something else (e.g. a missing third-party package)."""
    name = exc.name or ""
    for package in _ROOTS:
        if (name == package or name.startswith(f"{package}.")) and uses_compat_api(package):
            return str(exc)
    return None
