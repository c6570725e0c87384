"""Track plugins: a ``track.py`` (or a ``track/`` package) beside ``track.json`` whose
``register(registry)`` adds runners, param sources, schedulers and track processors.

Rally (``esrally/track/loader.py`` ``TrackPluginReader``, ``esrally/utils/modules.py``
``ComponentLoader``) imports the track directory as a package named after the directory, with the
directory's parent on ``sys.path`` (so ``from shared import ...`` works in ``elastic/logs``), and
calls ``register`` with an object offering ``register_param_source(name, source)``,
``register_runner(name, runner, **kwargs)``, ``register_scheduler(name, scheduler)`` and
``register_track_processor(processor)``.

esbench imports the track directory as a package with a unique, deterministic name
(``esbench_track_plugin_<hash of the directory>``), so tracks with the same directory name do not
clash, relative imports inside ``track.py`` work, and a worker process that calls
:func:`load_plugins` for the same track gets the same module names (pickled runner classes resolve).
The track directory and its parent are on ``sys.path`` only while the plugin is imported and
registered.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from esbench.exceptions import TrackError
from esbench.track.model import Track

logger = logging.getLogger(__name__)


def plugin_entry(root: Path) -> Path | None:
    """The plugin entry point of the track in ``root``: ``track.py`` or ``track/__init__.py``, else None."""
    module = root / "track.py"
    if module.is_file():
        return module
    package = root / "track" / "__init__.py"
    if package.is_file():
        return package
    return None


def has_plugins(root: Path) -> bool:
    """True if the track in ``root`` has a ``track.py`` (or ``track/`` package) plugin."""
    return plugin_entry(root) is not None


def package_name(root: Path) -> str:
    """The module name esbench imports the track directory ``root`` as."""
    digest = hashlib.sha1(str(root.resolve()).encode("utf-8")).hexdigest()[:12]
    return f"esbench_track_plugin_{digest}"


def _package(root: Path, name: str) -> ModuleType:
    existing = sys.modules.get(name)
    if existing is not None:
        return existing
    init = root / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(root)])
    else:
        # A namespace-like package whose only job is to make the track directory importable.
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(root)]
    if spec is None:
        raise TrackError(f"Cannot create a package for the track plugin in '{root}'.")
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    if spec.loader is not None:
        try:
            spec.loader.exec_module(package)
        except BaseException:
            del sys.modules[name]
            raise
    return package


def import_plugin(root: Path) -> ModuleType | None:
    """Import the plugin module of the track in ``root`` (None if it has none).

    Raises:
        TrackError: the plugin fails to import; the message names the file and the error.
    """
    entry = plugin_entry(root)
    if entry is None:
        return None
    name = package_name(root)
    added = [p for p in (str(root), str(root.parent)) if p not in sys.path]
    sys.path[:0] = added
    try:
        _package(root, name)
        return importlib.import_module(f"{name}.track")
    except Exception as e:
        raise TrackError(
            f"Could not import the track plugin '{entry}': {type(e).__name__}: {e}. Fix the plugin code, or "
            "install "
            f'the packages it needs (the track\'s "dependencies").',
            e,
        ) from e
    finally:
        for p in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(p)


def load_plugins(track: Track, registry: Any) -> None:
    """Import the track's ``track.py`` plugin, if any, and call its ``register(registry)``.

    Args:
        track: the loaded track (its ``root`` is searched).
        registry: an object with ``register_param_source``, ``register_runner``,
            ``register_scheduler`` and ``register_track_processor`` (e.g.
            ``esbench.driver.registry.Registry``); passed to the plugin as is.

    Raises:
        TrackError: the plugin cannot be imported, has no ``register`` function, or ``register``
            fails.
    """
    root = Path(track.root)
    entry = plugin_entry(root)
    if entry is None:
        return
    added = [p for p in (str(root), str(root.parent)) if p not in sys.path]
    module = import_plugin(root)
    assert module is not None
    register = getattr(module, "register", None)
    if not callable(register):
        raise TrackError(
            f"Track plugin '{entry}' has no register(registry) function. Add one that registers the plugin's "
            f"runners, param sources and schedulers."
        )
    # Plugins may import further modules lazily inside register().
    sys.path[:0] = added
    try:
        register(registry)
    except Exception as e:
        raise TrackError(
            f"Track plugin '{entry}' failed in register(): {type(e).__name__}: {e}. Fix the plugin.", e
        ) from e
    finally:
        for p in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(p)
    logger.debug("Registered track plugin %s as %s", entry, module.__name__)
