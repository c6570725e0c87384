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

import shutil
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
                shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(
    cmdclass={"build_py": BuildPyWithAssets},
    ext_modules=[
        Extension(
            "esbench.metrics._accumulator",
            [f"esbench/metrics/{name}.c" for name in ("_accumulator", "_phase", "_record")],
            depends=["esbench/_capi.h", "esbench/metrics/_accumulator.h"],
            optional=True,
        ),
        Extension(
            "esbench.driver.transport._connection",
            [f"esbench/driver/transport/{name}.c" for name in ("_connection", "_received", "_prepared", "_repeat", "_response", "_timing")],
            depends=["esbench/_capi.h", "esbench/driver/transport/_connection.h"],
            optional=True,
        ),
        Extension(
            "esbench.corpus._lines",
            ["esbench/corpus/_lines.c"],
            depends=["esbench/_capi.h"],
            optional=True,
        ),
    ],
)
