"""``esbench query``: esperf's workflow (seed 001) as an ad-hoc race.

A body template (``$RDICT``: a random line of the dictionary; ``$RNUM``; ``$[[name]]``
variables) is sent to each URL by ``clients`` clients; several URLs (several large indices, to
evict the page cache as seed 001 did) run at the same time as separate tasks of one race.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from esbench.adhoc.race import adhoc_settings
from esbench.adhoc.track import LoadShape, Stream, build_track, split_url
from esbench.driver.worker.params.template_vars import read_lines
from esbench.exceptions import ConfigError
from esbench.settings import RaceSettings


def query_track(
    base: RaceSettings,
    *,
    urls: Sequence[str],
    body: str | None,
    method: str | None,
    dictionary: Path | None,
    variables: Sequence[object],
    clients: int,
    rate: float | None,
    iterations: int | None,
    duration: float | None,
    warmup: float,
    recurrence: int | None = None,
    credentials: tuple[str, str] | None = None,
    timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
) -> RaceSettings:
    """The race settings of a query run (see module doc).

    ``recurrence`` is esperf's ``-r``: requests per URL over all its clients (esperf's worker
    threads share one request counter, ``Worker.cpp``/``Stats.cpp``; its README says "per
    thread", its code counts them together). ``iterations`` are per client; ``rate`` is over
    all clients and URLs; ``warmup`` is seconds omitted from the statistics (esperf's ``-o``),
    requests per client with ``iterations``. ``credentials`` (esperf's ``-u``) become the race's
    basic authentication unless the client options have some; ``timeout`` is seconds per request.

    Raises:
        ConfigError: a URL that is not http(s), a missing or empty dictionary, an unknown variable,
            a rate that is not positive, credentials given by ``-u`` and by the client options.
    """
    endpoints = [split_url(u, where=f"URL '{u}'") for u in urls]
    options = base.client_options
    if credentials is not None and (options.basic_auth_user or options.api_key):
        raise ConfigError(
            "-u/--user and the client options (--client-options or ESBENCH_USERNAME/ESBENCH_API_KEY) both "
            "give credentials; give them one way."
        )
    root = Path.cwd()
    if dictionary is not None:
        dictionary = dictionary.resolve()
        read_lines(dictionary, what="dictionary")
    streams = []
    seen: dict[str, int] = {}
    for endpoint in endpoints:
        params: dict[str, Any] = {"path": endpoint.target, "variables": list(variables)}
        if body:
            params["body"] = body
        if method:
            params["method"] = method.upper()
        if dictionary is not None:
            params["dictionary"] = str(dictionary)
        if timeout is not None:
            params["request-timeout"] = timeout
        if headers:
            params["headers"] = dict(headers)
        name = f"query {endpoint.target.split('?', 1)[0]}"
        seen[name] = seen.get(name, 0) + 1
        streams.append(Stream(name=name if seen[name] == 1 else f"{name} #{seen[name]}", params=params))
    shape = LoadShape(
        clients=clients,
        rate=rate,
        duration=duration if iterations is None else None,
        warmup=warmup if iterations is None else None,
        iterations=iterations,
        warmup_iterations=int(warmup) if iterations is not None else None,
        limits=(recurrence,) * len(streams) if recurrence is not None else (),
        clients_per_stream=True,
    )
    track = build_track(
        name="adhoc-query",
        challenge="query",
        root=root,
        streams=streams,
        shape=shape,
        description=f"esbench query: {', '.join(urls)}",
    )
    return adhoc_settings(base, track=track, endpoints=endpoints, credentials=credentials)
