"""The metrics store options of the commands that export to or read from it (``export``, ``race``,
``list races``, ``report``, ``compare``, ``trend``, the annotation commands): ``--metrics-store`` and
its credentials, ``--source=results-db|metrics-store`` and ``--environment``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from esbench.exceptions import UserError
from esbench.results.metrics_store import (
    DEFAULT_PREFIX,
    ENV_LAYOUT,
    MetricsStoreSettings,
    resolve_metrics_store,
)
from esbench.results.race_listing import DEFAULT_ENVIRONMENT
from esbench.results.store_layout import LayoutName

F = TypeVar("F", bound=Callable[..., Any])


def metrics_store_options(func: F) -> F:
    """Click options ``--metrics-store`` (env ``ESBENCH_METRICS_STORE``), ``--metrics-store-user``,
    ``--metrics-store-password``, ``--metrics-store-api-key``, ``--metrics-store-ca-certs``,
    ``--metrics-store-insecure``, ``--metrics-store-prefix`` and ``--metrics-store-layout``; turn
    their values into settings with :func:`metrics_store_settings`. Shared by ``export`` and ``race``.
    """
    options = (
        click.option(
            "--metrics-store",
            "metrics_store",
            envvar="ESBENCH_METRICS_STORE",
            default=None,
            metavar="URL",
            help="Also export races to this Elasticsearch metrics store, e.g. https://user:pass@host:9200 "
            "(env ESBENCH_METRICS_STORE).",
        ),
        click.option(
            "--metrics-store-user",
            envvar="ESBENCH_METRICS_STORE_USER",
            default=None,
            help="Metrics store user name (env ESBENCH_METRICS_STORE_USER).",
        ),
        click.option(
            "--metrics-store-password",
            envvar="ESBENCH_METRICS_STORE_PASSWORD",
            default=None,
            help="Metrics store password (prefer env ESBENCH_METRICS_STORE_PASSWORD: not in shell history).",
        ),
        click.option(
            "--metrics-store-api-key",
            envvar="ESBENCH_METRICS_STORE_API_KEY",
            default=None,
            help="Metrics store API key (env ESBENCH_METRICS_STORE_API_KEY).",
        ),
        click.option(
            "--metrics-store-ca-certs",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            default=None,
            help="CA bundle to verify the metrics store's TLS certificate.",
        ),
        click.option(
            "--metrics-store-insecure",
            is_flag=True,
            help="Do not verify the metrics store's TLS certificate.",
        ),
        click.option(
            "--metrics-store-prefix",
            default=DEFAULT_PREFIX,
            show_default=True,
            help="Prefix of the metrics store's index and template names.",
        ),
        click.option(
            "--metrics-store-layout",
            type=click.Choice([name.value for name in LayoutName]),
            envvar=ENV_LAYOUT,
            default=None,
            help="Write races in Rally's layout (rally-* indices) or OpenSearch Benchmark's (osb: "
            "benchmark-* indices). Default: datastore.type of esbench.ini ([reporting]: elasticsearch "
            f"is Rally's, opensearch is OSB's), else rally (env {ENV_LAYOUT}). Readers read both.",
        ),
    )
    for option in reversed(options):
        func = option(func)
    return func


def metrics_store_settings(
    *,
    metrics_store: str | None,
    metrics_store_user: str | None = None,
    metrics_store_password: str | None = None,
    metrics_store_api_key: str | None = None,
    metrics_store_ca_certs: Path | None = None,
    metrics_store_insecure: bool = False,
    metrics_store_prefix: str = DEFAULT_PREFIX,
    metrics_store_layout: str | None = None,
) -> MetricsStoreSettings | None:
    """The settings of :func:`metrics_store_options` values, else the ``[reporting]`` section of
    esbench.ini (:func:`esbench.results.metrics_store.resolve_metrics_store`); None when neither
    configures a metrics store.

    Raises:
        ConfigError: malformed URL or ini (the message never shows credentials).
    """
    return resolve_metrics_store(
        metrics_store,
        username=metrics_store_user,
        password=metrics_store_password,
        api_key=metrics_store_api_key,
        ca_certs=metrics_store_ca_certs,
        verify_certs=not metrics_store_insecure,
        index_prefix=metrics_store_prefix,
        layout=metrics_store_layout,
    )


SOURCE_RESULTS_DB, SOURCE_METRICS_STORE = "results-db", "metrics-store"


def source_options(func: F) -> F:
    """``--source`` (results-db | metrics-store), ``--environment`` and :func:`metrics_store_options`
    of the commands that read stored races (``list races``, ``report``, ``compare``)."""
    func = metrics_store_options(func)
    func = click.option(
        "--environment",
        default=DEFAULT_ENVIRONMENT,
        show_default=True,
        help="With --source=metrics-store: only Rally's and OSB's races of this environment (their "
        "env.name; esbench's older esbench-* documents have none and always count).",
    )(func)
    return click.option(
        "--source",
        type=click.Choice((SOURCE_RESULTS_DB, SOURCE_METRICS_STORE)),
        default=SOURCE_RESULTS_DB,
        show_default=True,
        help="Read races from the results store, or from the Elasticsearch/OpenSearch metrics store "
        "(--metrics-store): Rally's rally-races-*, OSB's benchmark-test-runs-*, esbench's esbench-races-*.",
    )(func)


def reading_store_help(command: click.Command, what: str) -> None:
    """Say in ``command``'s help what its ``--metrics-store`` is for (``metrics_store_options`` is
    shared with ``export`` and ``race``, whose help says where races are exported to)."""
    for param in command.params:
        if param.name == "metrics_store" and isinstance(param, click.Option):
            param.help = f"{what}, e.g. https://user:pass@host:9200 (env ESBENCH_METRICS_STORE)."


def check_environment_applies(source: str) -> None:
    """Refuse ``--environment`` given on the command line with the results store, which has no
    environments (the option would do nothing there).

    Raises:
        UserError: ``--environment`` was given and ``source`` is the results store.
    """
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("environment") == click.core.ParameterSource.COMMANDLINE
    if given and source == SOURCE_RESULTS_DB:
        raise UserError(
            "--environment selects Rally's races in the metrics store (Rally's env.name); the results "
            "store has no environments. Add --source=metrics-store, or leave --environment out."
        )


def reading_settings(command: str, store_options: dict[str, Any]) -> MetricsStoreSettings:
    """The settings of :func:`metrics_store_options` values, checked reachable (``command`` names the
    command in the message when none is configured).

    Raises:
        UserError: no metrics store is configured. StoreError: it cannot be reached.
        ConfigError: a malformed URL.
    """
    settings = metrics_store_settings(**store_options)
    if settings is None:
        raise UserError(
            f"esbench {command} --source=metrics-store needs --metrics-store=URL (or the "
            "ESBENCH_METRICS_STORE variable)."
        )
    from esbench.results.store_probe import check_reachable

    check_reachable(settings)
    return settings
