"""Compose an ad-hoc run into :class:`esbench.settings.RaceSettings` with an in-memory track.

The hosts come from the request URLs unless ``--target-hosts`` is given; with
``--pipeline=from-distribution`` esbench provisions a node and only the URLs' paths are used.
Credentials found in a Loadgen file become client options (unless ``--client-options`` or the
environment already set some); ``--compress`` is the client option ``http_compress``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from esbench.adhoc.track import Endpoint, hosts_of
from esbench.driver.transport.client import ClientOptions
from esbench.driver.worker.params.base import operation_params
from esbench.driver.worker.params.template_source import TemplatedRequestParamSource
from esbench.exceptions import ConfigError
from esbench.settings import PIPELINE_FROM_DISTRIBUTION, RaceSettings
from esbench.track.model import Track


def adhoc_settings(
    base: RaceSettings,
    *,
    track: Track,
    endpoints: Sequence[Endpoint],
    credentials: tuple[str, str] | None = None,
    compress: bool = False,
) -> RaceSettings:
    """``base`` (the shared race options) completed for an ad-hoc ``track``.

    Raises:
        ConfigError: http and https URLs mixed; anything the ``templated-request`` param source
            rejects (checked here, before any cluster is contacted or provisioned).
    """
    for task in track.default_challenge.tasks():
        TemplatedRequestParamSource(track, operation_params(task), operation_name=task.name)
    options: ClientOptions = base.client_options
    hosts = base.target_hosts
    if not hosts and base.pipeline != PIPELINE_FROM_DISTRIBUTION:
        hosts, secure = hosts_of(endpoints, where="The request URLs")
        if secure and not options.use_ssl:
            options = replace(options, use_ssl=True)
        if any(e.secure for e in endpoints) is False and options.use_ssl:
            raise ConfigError("The URLs are http:// but --client-options has use_ssl:true; make them agree.")
    if credentials and not (options.basic_auth_user or options.api_key):
        options = replace(options, basic_auth_user=credentials[0], basic_auth_password=credentials[1])
    if compress:
        options = replace(options, http_compress=True)
    return replace(base, track=track, target_hosts=tuple(hosts), client_options=options)
