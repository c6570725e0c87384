"""Build hook: ships the top-level ``tracks/`` and ``cars/`` inside the wheel.

They live at the top of the source tree (where users look for them), and are copied to
``esbench/builtin/`` in a built package; ``esbench.home`` looks there first, then in the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
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


setup(cmdclass={"build_py": BuildPyWithAssets})
