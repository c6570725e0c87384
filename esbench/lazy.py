"""Lazy package exports: a package names its public API without importing the modules behind it.

Used by the ``__init__`` of :mod:`esbench` and of the stage packages (driver, track, provision,
requirements), so that importing one light module of a package (``esbench.driver.settings``) or the
command line (``esbench --help``) does not import the whole stage (the driver, elasticsearch-py,
Jinja, jsonschema...). Mechanism: PEP 562 module ``__getattr__``/``__dir__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for ``exports`` (name -> defining module).

    A name is imported from its module on first access and then cached in the package's namespace.
    Its type is ``object`` here: a package's type-checked view of each name comes from its
    ``if TYPE_CHECKING:`` imports.

    Raises (from the returned ``__getattr__``):
        AttributeError: a name that is not in ``exports`` (which also lets ``from package import
        submodule`` fall back to importing the submodule).
    """

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(exports) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
