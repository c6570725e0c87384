"""Registry of corpus generators: corpora that esbench makes itself instead of downloading.

A track asks for a generated corpus with a ``meta`` key on the corpus or on a document entry::

    "meta": {"generator": "eventdata", "generator-params": {"doc_count": 1000000, "seed": 1}}

and no ``base-url``; :func:`esbench.corpus.prepare.prepare_corpora` calls the generator when the
file is not in the cache yet (see :mod:`esbench.corpus.generate`).

Generator contract (:class:`CorpusGenerator`): a picklable object with ``name``, ``version``
(bump when the output changes), ``chunk_size``, ``normalize_params(params) -> dict`` and
``render_chunk(params, chunk_index, count) -> bytes`` returning the first ``count`` documents of
chunk ``chunk_index`` as NDJSON. The corpus of N documents is chunks ``0, 1, ...`` concatenated
and cut at N documents, so rendering must depend only on the params and the chunk index.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from esbench.exceptions import TrackValidationError


@runtime_checkable
class CorpusGenerator(Protocol):
    """What a corpus generator provides (see the module docstring)."""

    name: str
    version: str
    chunk_size: int

    def normalize_params(self, params: Mapping[str, object]) -> Mapping[str, object]:
        """Validated params with defaults filled in (raise TrackValidationError on bad ones)."""
        ...

    def render_chunk(self, params: Mapping[str, object], chunk_index: int, count: int) -> bytes:
        """The first ``count`` documents of chunk ``chunk_index`` as NDJSON bytes."""
        ...


# Built-in generators are imported on first use: their catalogs are not free to build.
_BUILTIN: dict[str, str] = {"eventdata": "esbench.corpus.generators.eventdata"}
_REGISTRY: dict[str, CorpusGenerator] = {}


def register_generator(generator: CorpusGenerator) -> None:
    """Make ``generator`` available under ``generator.name`` (replaces an earlier one)."""
    if not isinstance(generator, CorpusGenerator):
        raise TypeError(f"{generator!r} does not implement the CorpusGenerator protocol")
    _REGISTRY[generator.name] = generator


def get_generator(name: str) -> CorpusGenerator:
    """The generator registered as ``name``.

    Raises:
        TrackValidationError: no such generator (the message lists the known ones).
    """
    if name not in _REGISTRY and name in _BUILTIN:
        module = importlib.import_module(_BUILTIN[name])
        register_generator(module.GENERATOR)
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(set(_REGISTRY) | set(_BUILTIN)))
        raise TrackValidationError(
            f"Unknown corpus generator '{name}' in the corpus 'meta'. Known generators: {known}."
        ) from None


def generator_names() -> tuple[str, ...]:
    """Names of the built-in and registered generators."""
    return tuple(sorted(set(_REGISTRY) | set(_BUILTIN)))
