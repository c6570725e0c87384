"""What a race makes available to Rally plugins in one process (coordinator or worker).

Rally's plugin API has process-wide functions (``esrally.driver.runner.runner_for``) and param
sources built from the track alone (``BulkIndexParamSource(track, params)``). Their esbench
counterparts need the race's registry and prepared corpora; the registry's owner puts them here
(:func:`activate`) when it builds the registry of the race in this process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet
    from esbench.driver.pluginhost import PluginRegistry


class _Active:
    registry: PluginRegistry | None = None
    corpora: CorpusSet | None = None


def activate(registry: PluginRegistry, corpora: CorpusSet | None = None) -> None:
    """Make ``registry`` (and the prepared ``corpora``, a ``CorpusSet``) the ones plugins see."""
    _Active.registry = registry
    if corpora is not None:
        _Active.corpora = corpora


def active_registry() -> PluginRegistry:
    """The registry of the race running in this process.

    Raises:
        esbench.exceptions.TrackError: no race has built one (a plugin function called outside a race).
    """
    registry = _Active.registry
    if registry is None:
        from esbench.exceptions import TrackError

        raise TrackError(
            "esrally.driver.runner.runner_for() was called outside a race: esbench knows the runners only "
            "while a race runs. Call it from a runner or a param source, not at import time."
        )
    return registry


def active_corpora() -> CorpusSet | None:
    """The prepared corpora of the race in this process (a ``CorpusSet``), or None."""
    return _Active.corpora
