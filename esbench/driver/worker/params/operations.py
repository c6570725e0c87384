"""Param sources of ``downsample`` and ``composite``.

* ``downsample`` follows Rally 2.13's ``DownsampleParamSource`` (``esrally/track/params.py``):
  ``fixed-interval`` default ``1h``, ``source-index`` = ``source-index`` or Rally's default target
  (the track's only index or data stream), ``target-index`` default
  ``<source-index>-<fixed-interval>``, ``sampling-method`` only when given.
* ``composite`` has Rally's default source; esbench checks its ``requests`` structure when the
  task starts instead of at its first request, so a typo fails before anything is measured.
"""

from __future__ import annotations

from typing import Any

from esbench.driver.worker.params.base import ParamSource, get_target
from esbench.driver.worker.runners.base import RallyParams
from esbench.driver.worker.runners.composite import validate_requests
from esbench.track.model import Track

#: Keys Rally's ``ParamSource._client_params`` passes through to every runner.
_CLIENT_PARAMS = ("request-timeout", "headers", "opaque-id", "request-params")


class DownsampleParamSource(ParamSource):
    """``downsample`` -> ``fixed-interval``, ``source-index``, ``target-index``
    [, ``sampling-method``] plus the client params."""

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        interval = params.get("fixed-interval", "1h")
        source = get_target(track, {**params, "index": params.get("source-index")})
        resolved: dict[str, Any] = {
            "fixed-interval": interval,
            "source-index": source,
            "target-index": params.get("target-index", f"{source}-{interval}"),
        }
        if params.get("sampling-method"):
            resolved["sampling-method"] = params["sampling-method"]
        for key in ("name", "operation-type", *_CLIENT_PARAMS):
            if key in params:
                resolved[key] = params[key]
        self._params = resolved


class CompositeParamSource(ParamSource):
    """``composite``: the operation's params unchanged, after :func:`validate_requests`.

    Raises:
        esbench.exceptions.ConfigError: a malformed ``requests`` list (the message has its JSON path).
    """

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        name = kwargs.get("operation_name") or params.get("name") or "composite"
        if "requests" in params:
            validate_requests(params["requests"], f"Operation '{name}' (composite): requests")
