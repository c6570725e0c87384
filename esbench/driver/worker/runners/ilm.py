"""Index lifecycle management operations: ``create-ilm-policy``, ``delete-ilm-policy``.

Rally 2.13 (``esrally/driver/runner.py``, ``CreateIlmPolicy``/``DeleteIlmPolicy``) calls
``es.ilm.put_lifecycle``/``delete_lifecycle`` with the ``error_trace``, ``filter_path``,
``master_timeout`` and ``timeout`` entries of ``request-params`` (other entries are not sent). The
API is in the ``x-pack-ilm`` module; a cluster without it answers with
a failed request naming the module (:func:`~.features.missing_module`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.driver.worker.runners.features import ILM, result_of
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.failures import DefaultTimeout

_FORWARDED = ("error_trace", "filter_path", "master_timeout", "timeout")


def _policy_request(
    params: RallyParams, operation: str
) -> tuple[str, dict[str, object], dict[str, str] | None, float | DefaultTimeout]:
    policy = path_part(mandatory(params, "policy-name", operation))
    request_params, headers, timeout = request_options(params)
    query = {k: request_params[k] for k in _FORWARDED if request_params.get(k) is not None}
    return f"/_ilm/policy/{policy}", query, headers, timeout


class CreateIlmPolicy(Runner):
    """``create-ilm-policy``: ``PUT /_ilm/policy/<policy-name>`` with ``{"policy": body.policy}``;
    1 op.

    Raises:
        esbench.exceptions.ConfigError: ``body`` has no top-level ``policy`` (Rally's ``DataError``).
    """

    name = "create-ilm-policy"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = mandatory(params, "body", self.name)
        policy = body.get("policy") if isinstance(body, Mapping) else None
        if not policy:
            raise ConfigError(
                f"Operation '{params.get('name') or self.name}' (create-ilm-policy): the request body "
                f"does not contain the expected root field [policy]. Put the policy under a top-level "
                f"'policy' field of 'body' and try again."
            )
        path, query, headers, timeout = _policy_request(params, self.name)
        response = await send(
            es, "PUT", path, query=query, body={"policy": policy}, headers=headers, timeout=timeout
        )
        return result_of(response, module=ILM)


class DeleteIlmPolicy(Runner):
    """``delete-ilm-policy``: ``DELETE /_ilm/policy/<policy-name>``; 404 is not an error; 1 op."""

    name = "delete-ilm-policy"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        path, query, headers, timeout = _policy_request(params, self.name)
        response = await send(es, "DELETE", path, query=query, headers=headers, timeout=timeout)
        return result_of(response, module=ILM, ignore=(404,))
