"""What a sweep varies, the settings of one point, a sweep's id, and the parsing of sweep lists.

Light on purpose (no driver, no results store): the CLI imports it to build its options and
``--help`` (see tests/unit/test_cli_lazy_imports.py); :mod:`esbench.planning.sweep` runs the points.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from enum import StrEnum
from typing import Any

from esbench.settings import RaceSettings
from esbench.track.overrides import TaskOverride


class Dimension(StrEnum):
    """What a sweep varies."""

    CLIENTS = "clients"
    TARGET_THROUGHPUT = "target-throughput"
    BULK_SIZE = "bulk-size"
    TRACK_PARAM = "track-param"
    NODES = "nodes"


def point_settings(
    base: RaceSettings, task: str, dimension: Dimension, value: Any, *, param: str = ""
) -> RaceSettings:
    """The settings of the race of one point: ``base`` with ``dimension`` set to ``value``.

    Args:
        base: the fixed settings (may already hold overrides of ``task``, e.g. its time period).
        task: the swept task; dimension: what varies; value: its value at this point (int for clients,
            bulk-size and nodes, float ops/s for target-throughput, any JSON value for a track param).
        param: the track param's name (:attr:`Dimension.TRACK_PARAM` only).
    """
    override = base.task_overrides.get(task, TaskOverride())
    if dimension is Dimension.CLIENTS:
        override = replace(override, clients=int(value))
    elif dimension is Dimension.TARGET_THROUGHPUT:
        override = replace(override, target_throughput=float(value))
    elif dimension is Dimension.BULK_SIZE:
        override = replace(override, bulk_size=int(value))
    elif dimension is Dimension.TRACK_PARAM:
        base = replace(base, track_params={**base.track_params, param: value})
    elif dimension is Dimension.NODES:
        base = replace(base, provision=replace(base.provision, nodes=int(value)))
    # Always an override for the task, so that race control checks the task is in the challenge
    # before anything is measured.
    return replace(base, task_overrides={**base.task_overrides, task: override})


def sweep_id(kind: str, base: RaceSettings, task: str, dimension: Dimension, *, param: str = "") -> str:
    """A stable id of a sweep definition without its values (12 hex digits of a SHA-1)."""
    params = {
        k: v for k, v in base.track_params.items() if not (dimension is Dimension.TRACK_PARAM and k == param)
    }
    overrides = {k: o.describe() for k, o in base.task_overrides.items()}
    prov = base.provision
    definition = {
        "kind": kind,
        "track": base.track_name or str(base.track_path),
        "challenge": base.challenge,
        "task": task,
        "dimension": str(dimension),
        "param": param,
        "track_params": params,
        "overrides": overrides,
        "hosts": list(base.target_hosts),
        "pipeline": base.pipeline,
        "test_mode": base.test_mode,
        "provision": None
        if base.target_hosts
        else [
            prov.distribution_version,
            prov.car,
            None if dimension is Dimension.NODES else prov.nodes,
            # Only another product's flavor: Elasticsearch sweeps keep the ids they had before.
            *([prov.distribution_flavor] if prov.distribution_flavor != "elasticsearch" else []),
        ],
        "user_tags": dict(base.user_tags),
    }
    text = json.dumps(definition, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def parse_values(text: str, *, option: str, convert: Callable[[str], Any]) -> list[Any]:
    """A sweep list: ``"1,5,10"`` -> ``[1, 5, 10]`` with ``convert`` applied to each item.

    Raises:
        UserError: an empty list, an item ``convert`` rejects, or a value given twice.
    """
    from esbench.exceptions import UserError

    items = [i.strip() for i in text.split(",") if i.strip()]
    if not items:
        raise UserError(
            f"{option} is empty: give the values to sweep, comma-separated, e.g. {option}=1,2,4,8."
        )
    values = []
    for item in items:
        try:
            values.append(convert(item))
        except (ValueError, UserError) as e:
            raise UserError(
                f"{option}: '{item}' is not a valid value ({e}); e.g. {option}=1,2,4,8."
            ) from None
    duplicates = sorted({str(v) for v in values if values.count(v) > 1})
    if duplicates:
        raise UserError(f"{option} gives {', '.join(duplicates)} more than once: list each value once.")
    return values


def labels(values: Iterable[Any]) -> list[str]:
    """The point labels of ``values`` (``4``, ``100.5``, ``true``)."""
    return [json.dumps(v) if not isinstance(v, str) else v for v in values]
