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
clash, relative imports inside ``track.py`` work, and a worker process that imports the plugin of
the same track (:func:`import_plugin`, through :class:`esbench.compat.host.RallyPluginHost`) gets
the same module names (pickled runner classes resolve). Where the plugin file lies in a track
directory is the track stage's knowledge (:mod:`esbench.track.pluginfile`).
The track directory and its parent are on ``sys.path`` only while the plugin is imported and
registered.

Before importing, esbench makes ``import esrally`` resolvable (:mod:`esbench.compat.shim`) unless the
real Rally is installed; an import of a Rally module or name that esbench does not provide, and
anything else the plugin raises, ends as one paragraph naming the plugin file and line
(:mod:`esbench.driver.worker.pluginerrors`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from esbench.compat import shim
from esbench.driver.pluginhost import PluginRegistry
from esbench.driver.worker.pluginerrors import add_plugin_root, plugin_failure, plugin_location
from esbench.exceptions import TrackError
from esbench.track.dialect import Dialect, dialect_of_directory
from esbench.track.model import Track
from esbench.track.pluginfile import plugin_entry, plugin_module_name

logger = logging.getLogger(__name__)


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
    shim.install()
    add_plugin_root(root)
    with _running_plugin_code(root, entry, where=f"the import of '{entry}'"):
        _package(root, name)
        return importlib.import_module(f"{name}.{plugin_module_name(root)}")


@contextlib.contextmanager
def _running_plugin_code(root: Path, entry: Path, *, where: str) -> Iterator[None]:
    """Run a plugin's own code (its import, its ``register``) with the track directory and its
    parent on ``sys.path``, as Rally does, and turn what it raises into one :class:`TrackError`.

    Raises:
        TrackError: an ImportError (:func:`_import_error`) or any other exception of the plugin
            (:func:`~esbench.driver.worker.pluginerrors.plugin_failure`, naming ``where``).
    """
    added = [p for p in (str(root), str(root.parent)) if p not in sys.path]
    sys.path[:0] = added
    try:
        yield
    except ImportError as e:
        raise _import_error(entry, e) from None
    except Exception as e:
        raise plugin_failure(e, where=where, plugin_file=entry) from None
    finally:
        for p in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(p)


def _import_error(entry: Path, e: ImportError) -> TrackError:
    location = plugin_location(e)
    at = f" at {location[0]}:{location[1]}" if location else f" in {entry}"
    unsupported = shim.unsupported_import(e)
    if unsupported is not None:
        return TrackError(
            f"The track plugin '{entry}' uses a part of Rally that esbench does not provide ({unsupported}; "
            f"imported{at}). esbench implements the Rally plugin API listed in docs/tracks.md "
            f'("Rally plugin API"); change the plugin to use those names, or install Rally '
            f"(pip install esrally) so that its own modules are imported.",
            e,
        )
    return TrackError(
        f"Could not import the track plugin '{entry}': {type(e).__name__}: {e} (imported{at}). Install the "
        f'packages it needs (the track\'s "dependencies"), or fix the import.',
        e,
    )


def load_plugins(track: Track, registry: PluginRegistry) -> None:
    """Import the track's ``track.py`` plugin, if any, and call its ``register(registry)``.

    Args:
        track: the loaded track (its ``root`` is searched).
        registry: a :class:`~esbench.driver.pluginhost.PluginRegistry`
            (``esbench.driver.worker.registry.Registry``); passed to the plugin as is.

    Raises:
        TrackError: see :func:`register_plugins`.
    """
    register_plugins(Path(track.root), registry)


def register_plugins(root: Path, registry: PluginRegistry) -> None:
    """Import the plugin of the track in ``root``, if any, and call its ``register(registry)``.

    Raises:
        TrackError: the plugin cannot be imported, has no ``register`` function, or ``register``
            fails.
    """
    entry = plugin_entry(root)
    if entry is None:
        return
    module = import_plugin(root)
    assert module is not None
    register = getattr(module, "register", None)
    if not callable(register):
        raise TrackError(
            f"Track plugin '{entry}' has no register(registry) function. Add one that registers the plugin's "
            f"runners, param sources and schedulers."
        )
    if dialect_of_directory(root).dialect is Dialect.OSB:
        from esbench.compat.osbregistry import WorkloadRegistry

        # OSB's plugins call OSB's names (register_workload_processor...).
        plugin_registry: object = WorkloadRegistry(registry)
    else:
        plugin_registry = registry
    # Plugins may import further modules lazily inside register().
    with _running_plugin_code(root, entry, where=f"register() of '{entry}'"):
        register(plugin_registry)
    logger.debug("Registered track plugin %s as %s", entry, module.__name__)
