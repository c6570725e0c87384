"""A cluster esbench provisioned for a race: :func:`provision_cluster` installs and starts it
(:mod:`esbench.provision.cluster`), and the :class:`ProvisionedCluster` it returns stops it, keeping
its logs and telemetry files with the race."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from esbench.provision import installation as inst_mod
from esbench.provision.cluster import copy_logs, install, start, stop
from esbench.provision.installation import Installation
from esbench.provision.security import SecurityMaterial
from esbench.provision.settings import ProvisionSettings


@dataclass(kw_only=True)
class ProvisionedCluster:
    """A running cluster started by :func:`provision_cluster`.

    Attributes:
        hosts: ``"127.0.0.1:PORT"`` per node (HTTP).
        installation_id: the id for ``esbench stop --installation-id``.
        version: the Elasticsearch version actually running.
        car: the car name (``"defaults+4gheap"``).
        distribution_flavor: ``"elasticsearch"`` or ``"opensearch"``.
        security: the CA, user and password file of a secured cluster (car ``x-pack-security``),
            None otherwise; its hosts then speak ``https`` only.
    """

    hosts: tuple[str, ...]
    installation_id: str
    version: str
    car: str
    installation: Installation = field(repr=False)
    distribution_flavor: str = "elasticsearch"
    security: SecurityMaterial | None = None
    race_dir: Path | None = None
    stop_timeout: float = 30.0
    _stopped: bool = field(default=False, repr=False)

    def stop(self, *, preserve_install: bool = False) -> None:
        """Stop the nodes, copy their logs to ``<race_dir>/logs/``, move their telemetry files to
        ``<race_dir>/telemetry/`` and delete the installation unless
        ``preserve_install`` (here or in the settings it was provisioned with). Idempotent."""
        if self._stopped:
            return
        stop(
            self.installation,
            preserve_install=preserve_install or bool(self.installation.extra.get("preserve_install")),
            timeout=self.stop_timeout,
            logs_to=self.race_dir / "logs" if self.race_dir else None,
        )
        self._stopped = True

    def __enter__(self) -> ProvisionedCluster:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop(preserve_install=False)


def provision_cluster(settings: ProvisionSettings, *, race_dir: Path | None) -> ProvisionedCluster:
    """Install and start a cluster per ``settings`` and wait for green (Rally's from-distribution).

    On any failure or Ctrl-C the launched nodes are stopped and the installation removed (kept with
    ``preserve_install``), then the error propagates.

    Raises:
        UserError, NotFound, SupplyError, JavaError, LaunchError, ProvisionError: see :func:`install` and
        :func:`start`.
    """
    installed = install(settings, race_dir=race_dir)
    try:
        started = start(installed, timeout=settings.start_timeout, stop_timeout=settings.stop_timeout)
    except BaseException:
        if race_dir is not None:
            copy_logs(installed, race_dir / "logs")
        if not settings.preserve_install:
            inst_mod.forget(installed, delete_files=True)
        raise
    return ProvisionedCluster(
        hosts=started.hosts,
        installation_id=started.id,
        version=started.version,
        car=started.car["name"],
        installation=started,
        race_dir=race_dir,
        stop_timeout=settings.stop_timeout,
        distribution_flavor=started.distribution_flavor,
        security=SecurityMaterial.from_dict(started.security),
    )
