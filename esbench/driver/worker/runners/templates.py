"""Template operations: legacy index templates (``/_template``), composable index templates
(``/_index_template``) and component templates (``/_component_template``), create and delete.

Create: ``templates`` is a list of ``(name, body)``; weight = templates created.
Delete: ``templates`` is a list of ``(name, delete-matching-indices, index-pattern)`` (names only for
component templates); with ``only-if-exists`` (default) a template is deleted only if ``HEAD``
finds it, otherwise a missing template is ignored; ``delete-matching-indices`` also deletes the
indices matching the pattern (resolved to their names: Elasticsearch 8 refuses wildcard
deletions by default). Weight = deletions made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    Runner,
    RunnerResult,
    failed,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.driver.worker.runners.indices import concrete_indices

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


class _CreateTemplates(Runner):
    endpoint = ""

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        templates = mandatory(params, "templates", self.name)
        query, headers, timeout = request_options(params)
        for created, (name, body) in enumerate(templates):
            response = await send(
                es,
                "PUT",
                f"/{self.endpoint}/{path_part(name)}",
                query=query,
                body=body,
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                return failed(response, weight=created)
        return RunnerResult(weight=len(templates))


class _DeleteTemplates(Runner):
    endpoint = ""

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        templates = mandatory(params, "templates", self.name)
        only_if_exists = params.get("only-if-exists", True)
        query, headers, timeout = request_options(params)
        count = 0
        for entry in templates:
            if isinstance(entry, str):
                name, delete_matching, pattern = entry, False, None
            else:
                name, delete_matching, pattern = entry
            path = f"/{self.endpoint}/{path_part(name)}"
            exists = True
            if only_if_exists:
                check = await send(es, "HEAD", path, headers=headers, timeout=timeout)
                exists = check.status != 404
            if exists:
                response = await send(es, "DELETE", path, query=query, headers=headers, timeout=timeout)
                if response.status >= 400 and response.status != 404:
                    return failed(response, weight=count)
                if response.status != 404:
                    count += 1
            # Only a non-empty pattern: deleting "" would address every index.
            if delete_matching and pattern:
                names = await concrete_indices(es, pattern, headers, timeout)
                if isinstance(names, RawResponse):
                    return failed(names, weight=count)
                if names:
                    response = await send(
                        es, "DELETE", f"/{path_part(names)}", headers=headers, timeout=timeout
                    )
                    if response.status >= 400 and response.status != 404:
                        return failed(response, weight=count)
                count += 1
        return RunnerResult(weight=count)


class CreateIndexTemplate(_CreateTemplates):
    """``create-index-template``: legacy ``PUT /_template/<name>``."""

    name = "create-index-template"
    endpoint = "_template"


class DeleteIndexTemplate(_DeleteTemplates):
    """``delete-index-template``: legacy ``DELETE /_template/<name>``."""

    name = "delete-index-template"
    endpoint = "_template"


class CreateComposableTemplate(_CreateTemplates):
    """``create-composable-template``: ``PUT /_index_template/<name>``."""

    name = "create-composable-template"
    endpoint = "_index_template"


class DeleteComposableTemplate(_DeleteTemplates):
    """``delete-composable-template``: ``DELETE /_index_template/<name>``."""

    name = "delete-composable-template"
    endpoint = "_index_template"


class CreateComponentTemplate(_CreateTemplates):
    """``create-component-template``: ``PUT /_component_template/<name>``."""

    name = "create-component-template"
    endpoint = "_component_template"


class DeleteComponentTemplate(_DeleteTemplates):
    """``delete-component-template``: ``DELETE /_component_template/<name>``."""

    name = "delete-component-template"
    endpoint = "_component_template"
