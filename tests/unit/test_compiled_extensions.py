"""The optional C extensions of the hot path: built where a C compiler is, selectable off."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from harness import esbench

from esbench import _compiled


def test_every_extension_is_built_where_a_c_compiler_is() -> None:
    """``pip install`` builds the extensions wherever it can; a silent fallback would cost every
    user several µs of CPU per request without a word."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine: the pure-Python core is expected")
    if _compiled.pure_python_requested():
        pytest.skip("ESBENCH_PURE_PYTHON is set: the pure-Python core was asked for")
    missing = [name for name in _compiled.EXTENSIONS if _compiled.load(name) is None]
    assert missing == [], (
        f"a C compiler is here but {missing} did not import: reinstall with `pip install -e .` "
        "and read the build output"
    )
    assert _compiled.status() == "hot path: C extensions"


def test_esbench_version_says_which_hot_path_is_in_use() -> None:
    out = esbench("--version")
    lines = out.stdout.splitlines()
    assert lines[0].startswith("esbench, version ")
    assert lines[1] == _compiled.status()


def test_pure_python_is_selected_by_the_environment_and_reported() -> None:
    script = (
        "from esbench import _compiled\n"
        "print(_compiled.status())\n"
        "print(_compiled.load('esbench.driver.transport._connection') is None)\n"
    )

    def run(value: str) -> list[str]:
        env = {**os.environ, "ESBENCH_PURE_PYTHON": value}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        return out.stdout.splitlines()

    for value in ("1", "yes"):
        assert run(value) == ["hot path: pure Python (ESBENCH_PURE_PYTHON is set)", "True"]
    # "0" (like unset) means the extensions wherever they are built.
    assert run("0")[0] == _compiled.status()


def test_an_extension_that_was_not_built_falls_back_and_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    real = _compiled.importlib.import_module

    def import_module(name: str) -> object:
        if name == "esbench.driver.transport._connection":
            raise ImportError(f"No module named {name!r}")
        return real(name)

    monkeypatch.delenv("ESBENCH_PURE_PYTHON", raising=False)
    monkeypatch.setattr(_compiled.importlib, "import_module", import_module)
    assert _compiled.load("esbench.driver.transport._connection") is None
    status = _compiled.status()
    assert status.startswith("hot path: pure Python for esbench.driver.transport._connection")
    assert "not built: no C compiler at install?" in status


def test_an_extension_built_from_older_sources_runs_its_twin_and_says_how_to_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A pull that changes a ``.c`` file without a rebuild leaves the old ``.so`` beside new Python:
    the checkout's sources no longer match the digest the module was built with."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None or _compiled.pure_python_requested():
        pytest.skip("the extensions are not built here (no C compiler, or ESBENCH_PURE_PYTHON is set)")
    name = "esbench.corpus._lines"
    spec = next(s for s in _compiled.EXTENSION_SPECS if s.name == name)
    root = Path(_compiled.__file__).resolve().parent.parent
    for relative in spec.files:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, tmp_path / relative)
    monkeypatch.delenv("ESBENCH_PURE_PYTHON", raising=False)
    monkeypatch.setattr(_compiled, "_ROOT", tmp_path)
    _compiled._stale.cache_clear()
    try:
        # The same sources: the build is current.
        assert _compiled.load(name) is not None
        with (tmp_path / spec.sources[0]).open("a") as f:
            f.write("/* a pulled change */\n")
        _compiled._stale.cache_clear()
        with caplog.at_level(logging.WARNING, logger="esbench._compiled"):
            assert _compiled.load(name) is None
            assert _compiled.load(name) is None
        warnings = [r.getMessage() for r in caplog.records if name in r.getMessage()]
        assert len(warnings) == 1 and "pip install -e ." in warnings[0]
        status = _compiled.status()
        assert status.startswith(f"hot path: pure Python for {name} (")
        assert "built from older sources: rebuild with `pip install -e .`" in status
    finally:
        _compiled._stale.cache_clear()


def test_an_installed_package_without_c_sources_is_never_called_stale(tmp_path: Path) -> None:
    spec = _compiled.EXTENSION_SPECS[0]
    assert _compiled.source_digest(spec, tmp_path) is None
    assert _compiled.source_digest(spec) is not None
