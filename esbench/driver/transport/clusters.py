"""Multi-cluster ``--target-hosts`` and ``--client-options`` (Rally 2.13, ``esrally/utils/opts.py``
``TargetHosts``/``ClientOptions``, ``esrally/rally.py`` ``configure_connection_params``).

Both options take, besides their single-cluster forms, a JSON object keyed by cluster name, inline
or in a file whose name ends in ``.json``::

    --target-hosts='{"default": ["127.0.0.1:9200"], "remote": ["10.0.0.1:9200"]}'
    --client-options='{"default": {"timeout": 60}, "remote": {"timeout": 60, "use_ssl": true}}'

The ``default`` cluster is the benchmark target: the built-in operations, the cluster checks and
the summary are about it. The others are there for track plugins: a runner that declares
``multi_cluster`` receives a client of every cluster by name (Rally's ``MultiClientRunner``), and
``node-stats`` telemetry samples each of them. Rules, as in Rally:

* a cluster's hosts are a list of ``HOST:PORT`` strings or URLs (a single string is one host; an
  object ``{"host": ..., "port": ...}`` is accepted too);
* the plain ``HOST:PORT,HOST:PORT`` form is the ``default`` cluster alone;
* without ``--client-options`` every cluster gets the default options; with them, the JSON object
  must name the same clusters as ``--target-hosts`` ("--target-hosts and --client-options must
  define the same keys for multi cluster setups"). The ``k:v`` form and a flat JSON object are the
  ``default`` cluster's options (so they only go with a single cluster).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from esbench.driver.settings import ClientOptions, ClusterTarget
from esbench.driver.transport.client import (
    ConnectionSettings,
    client_options_from_mapping,
    client_options_values,
    host_urls,
)
from esbench.exceptions import ConfigError

#: The name of the benchmark target in the multi-cluster forms (Rally's ``TargetHosts.DEFAULT``).
DEFAULT_CLUSTER = "default"

_EXAMPLE = '{"default": ["127.0.0.1:9200"], "remote": ["127.0.0.1:9201"]}'


@dataclass(frozen=True, kw_only=True)
class ClusterTargets:
    """The clusters of a race.

    Attributes:
        hosts / options: the ``default`` cluster's (the benchmark target; no hosts: esbench
            provisions it).
        others: every other cluster, in the order the option gives them.
    """

    hosts: tuple[str, ...] = ()
    options: ClientOptions = field(default_factory=ClientOptions)
    others: tuple[ClusterTarget, ...] = ()


def is_json_form(text: str | None) -> bool:
    """True if an option value is in the JSON form (inline object or ``.json`` file)."""
    stripped = (text or "").strip()
    return stripped.startswith(("{", "[")) or stripped.endswith(".json")


def parse_target_hosts(text: str | None) -> dict[str, tuple[str, ...]]:
    """``--target-hosts`` as cluster name -> hosts (empty without the option).

    Raises:
        esbench.exceptions.ConfigError: unreadable file or invalid JSON; not an object; no
            ``default`` cluster; a cluster without hosts or with a host that is not ``HOST:PORT``
            or a URL (the message names the cluster).
    """
    stripped = (text or "").strip()
    if not stripped:
        return {}
    if not is_json_form(stripped):
        hosts = tuple(h.strip() for h in stripped.split(",") if h.strip())
        host_urls(hosts, use_ssl=False)
        return {DEFAULT_CLUSTER: hosts}
    values = _json_value(stripped, "--target-hosts")
    if not isinstance(values, Mapping) or not values:
        raise ConfigError(
            f"--target-hosts in JSON must be an object of clusters and their hosts, e.g. {_EXAMPLE}."
        )
    if DEFAULT_CLUSTER not in values:
        raise ConfigError(
            f"--target-hosts names the clusters {', '.join(sorted(map(str, values)))} but no "
            f"'{DEFAULT_CLUSTER}': the '{DEFAULT_CLUSTER}' cluster is the one the race benchmarks. "
            f"Name it so, e.g. {_EXAMPLE}."
        )
    return {str(name): _cluster_hosts(str(name), nodes) for name, nodes in values.items()}


def _cluster_hosts(name: str, nodes: object) -> tuple[str, ...]:
    where = f"--target-hosts, cluster '{name}'"
    if isinstance(nodes, str):
        nodes = [nodes]
    if not isinstance(nodes, Sequence) or not nodes:
        raise ConfigError(f'{where}: give a list of HOST:PORT strings, e.g. ["127.0.0.1:9200"].')
    hosts = []
    for node in nodes:
        if isinstance(node, Mapping) and set(node) == {"host", "port"}:
            node = f"{node['host']}:{node['port']}"
        if not isinstance(node, str) or not node.strip():
            raise ConfigError(f"{where}: {node!r} is not a host; write hosts as HOST:PORT strings or URLs.")
        hosts.append(node.strip())
    try:
        host_urls(hosts, use_ssl=False)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    return tuple(hosts)


def parse_cluster_options(text: str | None, clusters: Sequence[str]) -> dict[str, ClientOptions]:
    """``--client-options`` as cluster name -> options, for the ``clusters`` of ``--target-hosts``
    (``[DEFAULT_CLUSTER]`` for a single cluster or a provisioned one).

    Raises:
        esbench.exceptions.ConfigError: what :func:`~esbench.driver.transport.client.parse_client_options`
            raises (naming the cluster); clusters other than those of ``--target-hosts``; the
            single-cluster form with several clusters.
    """
    if text is None or not text.strip():
        return {name: ClientOptions() for name in clusters}
    values = client_options_values(text)
    per_cluster = is_json_form(text) and isinstance(values.get(DEFAULT_CLUSTER), Mapping)
    if not per_cluster:
        if list(clusters) != [DEFAULT_CLUSTER]:
            raise ConfigError(
                f"--target-hosts names the clusters {', '.join(clusters)}, so --client-options must "
                f'give the options of each as JSON, e.g. {{"default": {{"timeout": 60}}, '
                f'"{_other(clusters)}": {{"timeout": 60}}}}.'
            )
        return {DEFAULT_CLUSTER: client_options_from_mapping(values)}
    if set(values) != set(clusters):
        missing = sorted(set(clusters) - set(values))
        extra = sorted(set(map(str, values)) - set(clusters))
        raise ConfigError(
            "--target-hosts and --client-options must define the same keys for multi cluster setups "
            f"(Rally's rule): --target-hosts names {', '.join(clusters)}"
            + (f"; --client-options lacks {', '.join(missing)}" if missing else "")
            + (f"; --client-options also names {', '.join(extra)}" if extra else "")
            + "."
        )
    options = {}
    for name in clusters:
        entry = values[name]
        if not isinstance(entry, Mapping):
            raise ConfigError(
                f"--client-options, cluster '{name}': give an object of options, got {type(entry).__name__}."
            )
        try:
            options[name] = client_options_from_mapping(entry)
        except ConfigError as e:
            raise ConfigError(f"{e} (in the options of cluster '{name}')") from None
    return options


def cluster_targets(hosts_text: str | None, options_text: str | None) -> ClusterTargets:
    """The clusters of ``--target-hosts`` with their ``--client-options`` (see module doc).

    Raises:
        esbench.exceptions.ConfigError: see :func:`parse_target_hosts` and :func:`parse_cluster_options`.
    """
    hosts = parse_target_hosts(hosts_text)
    names = list(hosts) or [DEFAULT_CLUSTER]
    options = parse_cluster_options(options_text, names)
    return ClusterTargets(
        hosts=hosts.get(DEFAULT_CLUSTER, ()),
        options=options[DEFAULT_CLUSTER],
        others=tuple(
            ClusterTarget(name=name, hosts=hosts[name], options=options[name])
            for name in names
            if name != DEFAULT_CLUSTER
        ),
    )


def connection_settings(
    hosts: Sequence[str], options: ClientOptions, others: Sequence[ClusterTarget] = ()
) -> ConnectionSettings:
    """What a worker needs to open its clients: the default cluster's, with each other cluster's
    in :attr:`ConnectionSettings.others`.

    Raises:
        esbench.exceptions.ConfigError: see :meth:`ConnectionSettings.create` (naming the cluster).
    """
    connection = ConnectionSettings.create(hosts, options)
    if not others:
        return connection
    resolved = []
    for cluster in others:
        # Each cluster's product decides its client's media types as the default's does.
        cluster_options = replace(
            cluster.options,
            distribution_flavor=cluster.options.distribution_flavor or options.distribution_flavor,
        )
        try:
            resolved.append((cluster.name, ConnectionSettings.create(cluster.hosts, cluster_options)))
        except ConfigError as e:
            raise ConfigError(f"Cluster '{cluster.name}': {e}") from None
    return replace(connection, others=tuple(resolved))


def _json_value(text: str, option: str) -> object:
    if text.endswith(".json"):
        path = Path(text).expanduser()
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(f"Cannot read the {option} file '{path}': {e.strerror}.") from e
        except ValueError as e:
            raise ConfigError(f"The {option} file '{path}' is not valid JSON: {e}.") from e
    try:
        return json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{option} is not valid JSON: {e}. Example: {_EXAMPLE}.") from e


def _other(clusters: Sequence[str]) -> str:
    return next((c for c in clusters if c != DEFAULT_CLUSTER), "remote")
