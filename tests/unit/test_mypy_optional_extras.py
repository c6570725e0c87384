"""`pip install -e ".[test]" && mypy esbench` (README's development check) passes without the
optional extras the test extra does not include: what they provide may be missing to mypy.

Verified in a fresh venv without Ray (CONTRIBUTING.md); this test keeps the configuration that makes
it pass: every such extra's package has a mypy override with ``ignore_missing_imports``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower().replace("-", "_")


def test_every_extra_outside_the_test_extra_may_be_missing_to_mypy() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    extras = config["project"]["optional-dependencies"]
    in_test = {_name(r) for r in extras["test"]}
    ignored = {
        module
        for override in config["tool"]["mypy"]["overrides"]
        if override.get("ignore_missing_imports")
        for module in override["module"]
    }
    # Distribution name -> import name where they differ.
    import_names = {"apache_otava": "otava", "opensearch_py": "opensearchpy"}
    missing = []
    for extra, requirements in extras.items():
        for requirement in requirements:
            name = _name(requirement)
            module = import_names.get(name, name)
            if name in in_test or extra == "test":
                continue
            if module not in ignored and f"{module}.*" not in ignored:
                missing.append(f"{module} (extra '{extra}')")
    assert not missing, f"add a [[tool.mypy.overrides]] with ignore_missing_imports for: {missing}"
