"""Build hooks: ships the top-level ``tracks/`` and ``cars/`` inside the wheel, and builds the
optional C extensions of the driver's hot path (the rest of the metadata is in pyproject.toml).

``tracks/`` and ``cars/`` live at the top of the source tree (where users look for them), and are
copied to ``esbench/builtin/`` in a built package; ``esbench.home`` looks there first, then in the
checkout.

The extensions are ``optional``: on a machine without a C compiler or Python headers their build
fails with a warning and esbench installs without them, using the pure-Python implementation of the
same code (see esbench/metrics/accumulator.py). ``ESBENCH_PURE_PYTHON=1`` selects the Python one
even where the extensions are built.
"""

import importlib.util
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildPyWithAssets(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        for name in ("tracks", "cars"):
            src = Path(name)
            if src.is_dir():
                dst = Path(self.build_lib) / "esbench" / "builtin" / name
                shutil.copytree(
                    src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
                )


def _compiled_module():
    """esbench/_compiled.py, loaded by path: the extension list and the source digest live there,
    and importing the esbench package would need its dependencies at build time."""
    path = Path(__file__).resolve().parent / "esbench" / "_compiled.py"
    spec = importlib.util.spec_from_file_location("_esbench_compiled", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolves the module of its classes by name
    spec.loader.exec_module(module)
    return module


def _extensions():
    compiled = _compiled_module()
    root = Path(__file__).resolve().parent
    return [
        Extension(
            spec.name,
            list(spec.sources),
            depends=list(spec.depends),
            # The module carries the digest of its sources, so that a checkout whose sources moved on
            # runs the Python twin instead of a stale build (esbench/_compiled.py).
            define_macros=[(compiled.DIGEST_MACRO, f'"{compiled.source_digest(spec, root)}"')],
            optional=True,
        )
        for spec in compiled.EXTENSION_SPECS
    ]


setup(cmdclass={"build_py": BuildPyWithAssets}, ext_modules=_extensions())
