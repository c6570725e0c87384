"""``esbench load``: an INFINI Loadgen YAML configuration (seed 002) or DSL file as an ad-hoc race.

Loadgen's flags map to the task: ``-c`` clients, ``-d`` seconds (time period), ``-r`` requests per
second (target throughput, open loop), ``-l`` total requests (``runner.total_rounds`` limits
each client too), ``--compress`` gzip bodies. Several requests in the file run together, each as
its own task, with the clients, rate and request limit shared out among them (Loadgen runs them in
sequence within each goroutine instead; the totals are the same). With ``runner.total_rounds``
(an API test, a fixed amount of work) they run one after the other in file order instead, each
``total_rounds`` times per client, so that ``PUT /index`` comes before ``POST /index/_doc``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from esbench.adhoc.loadgen import LoadgenConfig, is_dsl, load_config, with_credentials
from esbench.adhoc.loadgen_runner import RunnerOptions
from esbench.adhoc.race import adhoc_settings
from esbench.adhoc.track import LoadShape, Stream, build_track
from esbench.exceptions import ConfigError
from esbench.settings import RaceSettings


@dataclass(frozen=True, kw_only=True)
class LoadPlan:
    """A Loadgen run: the race settings and the ``runner`` options the command applies after the
    race (``assert_invalid``/``assert_error`` decide the exit status)."""

    settings: RaceSettings
    runner: RunnerOptions


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
    base_config: Path | None = None,
    dsl: bool | None = None,
) -> LoadPlan:
    """The race of a Loadgen run (see module doc).

    Args:
        config: the YAML or DSL file.
        base_config: for a DSL file, the YAML configuration it starts from (Loadgen's
            ``loadgen.yml``), or None.
        dsl: read ``config`` as DSL (True) or YAML (False); None = by its name.

    Raises:
        ConfigError: see :func:`esbench.adhoc.loadgen.load_config`; a rate that is not positive.
    """
    hosts = base.target_hosts
    fallback = None
    if hosts:
        scheme = "https" if base.client_options.use_ssl else "http"
        fallback = hosts[0] if "://" in hosts[0] else f"{scheme}://{hosts[0]}"
    cfg = load_config(config, base=base_config, dsl=dsl, default_endpoint=fallback)
    runner = cfg.runner
    limit, limits = _request_limits(cfg, clients=clients, limit=limit)
    options = base.client_options
    streams, credentials = with_credentials(
        cfg, client_has_credentials=bool(options.basic_auth_user or options.api_key)
    )
    if runner.assertion_ends_race:
        streams = tuple(Stream(name=s.name, params={**s.params, "assert-ends-race": True}) for s in streams)
    shape = LoadShape(
        clients=clients,
        rate=rate,
        duration=duration,
        warmup=warmup,
        request_limit=limit,
        limits=limits,
        sequential=runner.total_rounds is not None,
        warm_round={"warmup-round": sorted(runner.warmup_valid_statuses)} if runner.warm_round else None,
        warm_repeats=cfg.repeats,
    )
    track = build_track(
        name="adhoc-load",
        challenge=config.stem,
        root=config.resolve().parent,
        streams=streams,
        shape=shape,
        description=f"esbench load {'-run' if is_dsl(config) else '--config'} {config}",
    )
    settings = adhoc_settings(
        base, track=track, endpoints=cfg.endpoints, credentials=credentials, compress=compress
    )
    return LoadPlan(settings=settings, runner=runner)


def _request_limits(
    cfg: LoadgenConfig, *, clients: int, limit: int | None
) -> tuple[int | None, tuple[int, ...]]:
    """``-l`` after Loadgen's warm-up round, and the requests each stream may send (empty: no
    per-stream limit).

    Raises:
        ConfigError: ``-l`` leaves nothing after the warm-up round, or does not cover every request.
    """
    runner = cfg.runner
    k = len(cfg.streams)
    if limit is not None and runner.warm_round:
        # Loadgen counts the warm-up round's requests against -l (main.go: leftDoc -= reqCount).
        warm = sum(cfg.repeats)
        if limit <= warm:
            raise ConfigError(
                f"-l {limit} leaves no request after Loadgen's warm-up round ({warm} requests, counted "
                f"against -l as Loadgen does). Raise -l, or set runner.no_warm: true."
            )
        limit -= warm
    limits: tuple[int, ...] = ()
    if runner.total_rounds is not None:
        # Each client runs every request of a round in order (Loadgen's loader.go), so the
        # requests run one after the other, each `total_rounds` times per client.
        limits = tuple(runner.total_rounds * clients * r for r in cfg.repeats)
        if limit is not None:
            limits = tuple(min(n, _share(limit, k, i)) for i, n in enumerate(limits))
            if min(limits) < 1:
                raise ConfigError(
                    f"A request limit of {limit} cannot cover the {k} requests of the configuration."
                )
    elif limit is not None and any(r > 1 for r in cfg.repeats):
        limits = _weighted(limit, cfg.repeats)
    return limit, limits


def _share(total: int, parts: int, index: int) -> int:
    return total // parts + (1 if index < total % parts else 0)


def _weighted(total: int, weights: tuple[int, ...]) -> tuple[int, ...]:
    """``total`` shared out in proportion to ``weights`` (``execute_repeat_times``), adding up to it.

    Raises:
        ConfigError: a request would get no request at all.
    """
    whole = sum(weights)
    shares = [total * w // whole for w in weights]
    for i in range(total - sum(shares)):
        shares[i] += 1
    if min(shares) < 1:
        raise ConfigError(
            f"A request limit of {total} cannot cover the {len(weights)} requests of the configuration."
        )
    return tuple(shares)
