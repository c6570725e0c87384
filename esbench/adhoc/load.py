"""``esbench load``: an INFINI Loadgen YAML configuration (seed 002) as an ad-hoc race.

Loadgen's flags map to the task: ``-c`` clients, ``-d`` seconds (time period), ``-r`` requests per
second (target throughput, open loop), ``-l`` total requests (``runner.total_rounds`` limits
each client too), ``--compress`` gzip bodies. Several requests in the file run together, each as
its own task, with the clients, rate and request limit shared out among them (Loadgen runs them in
sequence within each goroutine instead; the totals are the same).
"""

from __future__ import annotations

from pathlib import Path

from esbench.adhoc.loadgen import load_config, with_credentials
from esbench.adhoc.race import adhoc_settings
from esbench.adhoc.track import LoadShape, build_track
from esbench.settings import RaceSettings


def load_track(
    base: RaceSettings,
    *,
    config: Path,
    clients: int,
    duration: float,
    rate: float | None,
    limit: int | None,
    compress: bool,
    warmup: float,
) -> RaceSettings:
    """The race settings of a Loadgen run.

    Raises:
        ConfigError: see :func:`esbench.adhoc.loadgen.load_config`; a rate that is not positive.
    """
    cfg = load_config(config)
    if cfg.total_rounds is not None:
        rounds_limit = cfg.total_rounds * clients
        limit = rounds_limit if limit is None else min(limit, rounds_limit)
    options = base.client_options
    streams, credentials = with_credentials(
        cfg, client_has_credentials=bool(options.basic_auth_user or options.api_key)
    )
    shape = LoadShape(clients=clients, rate=rate, duration=duration, warmup=warmup, request_limit=limit)
    track = build_track(
        name="adhoc-load",
        challenge=config.stem,
        root=config.resolve().parent,
        streams=streams,
        shape=shape,
        description=f"esbench load --config {config}",
    )
    return adhoc_settings(
        base, track=track, endpoints=cfg.endpoints, credentials=credentials, compress=compress
    )
