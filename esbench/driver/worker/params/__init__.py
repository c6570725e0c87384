"""Param sources: Rally's contract (:mod:`.base`) and the built-in ones by operation type."""

from __future__ import annotations

from collections.abc import Iterable

from esbench.driver.worker.params.base import (
    DelegatingParamSource,
    ParamSource,
    is_infinite,
    operation_params,
)
from esbench.driver.worker.refs import resolve
from esbench.track.optypes import OPERATION_TYPES, OpType

__all__ = [
    "DelegatingParamSource",
    "ParamSource",
    "builtin_param_sources",
    "is_infinite",
    "operation_params",
]


def builtin_param_sources(
    operation_types: Iterable[OpType] = OPERATION_TYPES,
) -> dict[str, type[ParamSource]]:
    """Operation type -> param source class for the built-in operations that need more than
    Rally's default source (the operation's params as they are): each descriptor's
    ``param_source`` in the table of operation types (:data:`esbench.track.optable.OPERATION_TYPES`).

    Raises:
        ImportError, AttributeError: a descriptor names a param source that does not exist.
    """
    return {op.name: resolve(op.param_source) for op in operation_types if op.param_source is not None}
