"""Ad-hoc load as an ordinary track: one ``templated-request`` task per request stream.

``esbench query`` and ``esbench load`` describe load the way esperf and INFINI Loadgen do (URLs,
clients, a rate, a duration or a request count); this module turns that into the
:class:`esbench.track.model.Track` every race runs, so the driver, metrics, report, results store,
compare and gate treat it like any Rally track. Several streams run together in one ``parallel``
block and are reported as separate tasks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Operation, Parallel, Task, Throughput, Track

OPERATION_TYPE = "templated-request"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A request URL split into what the race needs: ``base`` (``scheme://host:port``) and
    ``target`` (path and query string, placeholders kept)."""

    base: str
    target: str
    secure: bool


def split_url(url: str, *, where: str, default_base: str | None = None) -> Endpoint:
    """Split an http(s) URL (or a path, with ``default_base``).

    Raises:
        ConfigError: not an http(s) URL, or a path without a default endpoint.
    """
    text = url.strip()
    if text.startswith("/"):
        if default_base is None:
            raise ConfigError(
                f"{where}: the URL '{text}' has no host. Write it as http://HOST:PORT{text}, or set "
                f"runner.default_endpoint (Loadgen) or --target-hosts."
            )
        return split_url(default_base.rstrip("/") + text, where=where)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"{where}: '{text}' is not an http(s) URL. Write it as http://HOST:PORT/PATH (or https://...)."
        )
    if "$[[" in parts.netloc:
        raise ConfigError(f"{where}: the host of '{text}' holds a placeholder; only the path and query may.")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    host = parts.netloc.rpartition("@")[2]
    if ":" not in host:
        host += ":443" if parts.scheme == "https" else ":80"
    return Endpoint(base=f"{parts.scheme}://{host}", target=target, secure=parts.scheme == "https")


def hosts_of(endpoints: Sequence[Endpoint], *, where: str) -> tuple[tuple[str, ...], bool]:
    """The distinct hosts of ``endpoints`` (as target hosts) and whether they use TLS.

    Raises:
        ConfigError: http and https mixed.
    """
    secure = {e.secure for e in endpoints}
    if len(secure) > 1:
        raise ConfigError(f"{where}: the URLs mix http and https; one run talks to one cluster, one way.")
    hosts = tuple(dict.fromkeys(e.base for e in endpoints))
    return hosts, bool(secure and secure.pop())


@dataclass(frozen=True, kw_only=True)
class Stream:
    """One request stream: the ``templated-request`` params and its name in the report."""

    name: str
    params: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class LoadShape:
    """How hard and how long: shared out among the streams.

    Attributes:
        clients: clients over all streams (each stream gets at least one).
        rate: total target throughput in requests/s over all streams, or None (as fast as possible).
        duration: seconds of measurement (time based), or None.
        warmup: warmup seconds before the measurement (time based).
        iterations: requests per client (iteration based), or None.
        warmup_iterations: warmup requests per client.
        request_limit: total requests over all streams and clients, or None.
        limits: the request limit of each stream (over its clients), instead of sharing out
            ``request_limit``; empty = share.
        clients_per_stream: True = every stream gets ``clients`` clients (esperf's threads per
            URL); False = ``clients`` are divided among the streams (Loadgen's ``-c``).
        sequential: the streams run one after the other in their order, each with ``clients``
            clients and the whole ``request_limit`` share of its own (Loadgen's order of requests
            within a round); else together in one ``parallel`` block.
        warm_round: before everything, each stream once, by one client, not measured and not
            reported (Loadgen's warm-up round), with these ``templated-request`` params added.
        warm_repeats: requests of each stream in the warm-up round (``execute_repeat_times``);
            empty = one each.
    """

    clients: int = 1
    rate: float | None = None
    duration: float | None = None
    warmup: float | None = None
    iterations: int | None = None
    warmup_iterations: int | None = None
    request_limit: int | None = None
    limits: tuple[int, ...] = ()
    clients_per_stream: bool = False
    sequential: bool = False
    warm_round: Mapping[str, object] | None = None
    warm_repeats: tuple[int, ...] = ()
    meta: Mapping[str, object] = field(default_factory=dict)


def _share(total: int, parts: int, index: int) -> int:
    return total // parts + (1 if index < total % parts else 0)


def build_track(
    *, name: str, challenge: str, root: Path, streams: Sequence[Stream], shape: LoadShape, description: str
) -> Track:
    """The track of an ad-hoc run (see module doc).

    Raises:
        ConfigError: no stream, a non-positive rate, fewer requests than streams.
    """
    if not streams:
        raise ConfigError("There is no request to send.")
    if shape.rate is not None and shape.rate <= 0:
        raise ConfigError(f"The rate must be positive (requests per second), got {shape.rate:g}.")
    k = len(streams)
    if shape.request_limit is not None and shape.request_limit < k and not shape.limits:
        raise ConfigError(
            f"A request limit of {shape.request_limit} cannot cover the {k} requests of the configuration."
        )
    limits = shape.limits if shape.limits else None
    tasks = []
    for i, stream in enumerate(streams):
        own = shape.clients_per_stream or shape.sequential
        clients = shape.clients if own else max(1, _share(shape.clients, k, i))
        params = dict(stream.params)
        if limits is not None:
            params["request-limit"] = limits[i]
        elif shape.request_limit is not None:
            params["request-limit"] = _share(shape.request_limit, k, i)
        op = Operation(name=stream.name, operation_type=OPERATION_TYPE, params=params)
        if shape.iterations is not None:
            warmup_time = None
        elif shape.duration is not None:
            warmup_time = shape.warmup
        else:  # ends when the request limit is reached; esperf's -o omits the first seconds
            warmup_time = shape.warmup or None
        tasks.append(
            Task(
                name=stream.name,
                operation=op,
                clients=clients,
                warmup_time_period=warmup_time,
                time_period=shape.duration,
                warmup_iterations=shape.warmup_iterations if shape.iterations is not None else None,
                iterations=shape.iterations,
                target_throughput=Throughput(value=shape.rate / (1 if shape.sequential else k))
                if shape.rate is not None
                else None,
            )
        )
    warm: list[Task] = []
    if shape.warm_round is not None:
        for i, stream in enumerate(streams):
            params = {**stream.params, **shape.warm_round, "include-in-reporting": False}
            params.pop("request-limit", None)
            warm_name = f"warm-up {stream.name}"
            op = Operation(
                name=warm_name, operation_type=OPERATION_TYPE, params=params, include_in_reporting=False
            )
            repeat = shape.warm_repeats[i] if shape.warm_repeats else 1
            warm.append(Task(name=warm_name, operation=op, clients=1, warmup_iterations=repeat, iterations=0))
    if shape.sequential or k == 1:
        schedule: tuple[Task | Parallel, ...] = (*warm, *tasks)
    else:
        schedule = (*warm, Parallel(tasks=tuple(tasks)))
    return Track(
        name=name,
        root=root,
        description=description,
        challenges=(Challenge(name=challenge, schedule=schedule, default=True, description=description),),
    )
