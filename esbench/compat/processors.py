"""Track processors: Rally's ``TrackProcessor`` contract and its application after loading.

Rally (``esrally/track/loader.py``, 2.13): ``TrackProcessorRegistry`` keeps its required processors
(task filter, serverless filter, test mode) first, then the plugin's processors; when a plugin
registers none, Rally's own ``DefaultTrackPreparator`` stands in. Registering the first processor
that is not a ``DefaultTrackPreparator`` drops the default one (a plugin that still wants it
registers it again, as http_logs does). After the track is loaded, ``on_after_load_track(track)``
runs on every processor in that order and changes the track in place; later
``on_prepare_track(track, data_root_dir)`` yields ``(function, kwargs)`` pairs that Rally calls.

esbench applies its own equivalents of the required processors earlier (test mode in
:func:`esbench.track.load_track`, before the plugin's processors as in Rally; ``--include-tasks`` /
``--exclude-tasks`` are applied by the driver, after them), and prepares corpora itself, which is what
``DefaultTrackPreparator`` does in Rally.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from typing import Any

from esbench.compat import trackconvert
from esbench.driver.worker.pluginerrors import plugin_failure
from esbench.track.model import Track

logger = logging.getLogger(__name__)


class TrackProcessor(abc.ABC):  # noqa: B024 - Rally's class is an ABC without abstract methods
    """Rally's ``loader.TrackProcessor``: both hooks do nothing by default."""

    def on_after_load_track(self, track: Any) -> None:  # noqa: B027 - Rally's hook is optional
        """Change the (Rally-shaped, mutable) ``track`` in place after it is loaded."""

    @staticmethod
    def _noop() -> None:
        return None

    def on_prepare_track(
        self, track: Any, data_root_dir: str
    ) -> Generator[tuple[Callable[..., Any], dict[str, Any]], None, None]:
        """Yield ``(function, kwargs)`` pairs that prepare data; the default yields a no-op."""
        yield TrackProcessor._noop, {}


class DefaultTrackPreparator(TrackProcessor):
    """Rally's default corpus preparation. In esbench the corpus stage prepares the corpora of the
    challenge (download, decompress, offsets), so this processor yields nothing; it exists so that
    plugins can register it (http_logs does) and so that it keeps Rally's registry rule."""

    def __init__(self) -> None:
        super().__init__()
        self.cfg: Any = None
        self.downloader: Any = None
        self.decompressor: Any = None
        self.track: Any = None

    def on_prepare_track(
        self, track: Any, data_root_dir: str
    ) -> Generator[tuple[Callable[..., Any], dict[str, Any]], None, None]:
        yield from ()


def effective_processors(registered: Sequence[Any]) -> list[Any]:
    """The plugin processors Rally would run, in order (see module doc for the rule)."""
    processors: list[Any] = []
    custom = False
    for processor in registered:
        if not custom:
            processors = []
        if not isinstance(processor, DefaultTrackPreparator):
            custom = True
        processors.append(processor)
    if not custom:
        processors = [DefaultTrackPreparator()]
    return processors


def apply_track_processors(
    track: Track,
    registered: Sequence[Any],
    *,
    data_root_dir: Path,
    plugin_file: Path | None = None,
) -> Track:
    """Run the plugin's processors on ``track`` in Rally's order and return the changed model.

    ``on_after_load_track`` runs on a Rally-shaped copy (:func:`esbench.compat.trackconvert.to_rally`)
    for every processor first, then ``on_prepare_track`` with the changed track, whose
    ``(function, kwargs)`` pairs are called here, one after the other. The result goes back through
    :func:`esbench.compat.trackconvert.from_rally` (the one conversion point).

    Args:
        track: the loaded track (test mode already applied).
        registered: processors in registration order (``Registry.track_processors``).
        data_root_dir: the directory handed to ``on_prepare_track`` (esbench's corpora directory).
        plugin_file: the plugin's entry file, for messages.

    Raises:
        esbench.exceptions.EsbenchError: a processor raised; one paragraph naming the processor,
            the plugin file and line, and the exception.
    """
    processors = effective_processors(registered)
    if all(type(p) is DefaultTrackPreparator for p in processors):
        return track
    view = trackconvert.to_rally(track)
    for processor in processors:
        try:
            processor.on_after_load_track(view)
        except Exception as exc:
            raise plugin_failure(
                exc, where=f"{type(processor).__name__}.on_after_load_track()", plugin_file=plugin_file
            ) from None
    for processor in processors:
        name = f"{type(processor).__name__}.on_prepare_track()"
        try:
            steps: Iterable[Any] = processor.on_prepare_track(view, str(data_root_dir)) or ()
            for step in steps:
                if isinstance(step, tuple) and len(step) == 2 and callable(step[0]):
                    function, kwargs = step
                    function(**(kwargs or {}))
        except Exception as exc:
            raise plugin_failure(exc, where=name, plugin_file=plugin_file) from None
    changed = trackconvert.from_rally(view, track)
    logger.debug(
        "Track processors %s applied to track %s", [type(p).__name__ for p in processors], track.name
    )
    return changed
