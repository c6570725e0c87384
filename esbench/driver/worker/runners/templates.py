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

from typing import TYPE_CHECKING

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    mandatory,
    path_part,
    request_options,
)
from esbench.driver.worker.runners.resources import delete_matching, delete_one, put_each

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


class _CreateTemplates(Runner):
    endpoint = ""

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        templates = mandatory(params, "templates", self.name)
        return await put_each(es, params, templates, self._request)

    def _request(self, entry: tuple[object, object]) -> tuple[str, object]:
        name, body = entry
        return f"/{self.endpoint}/{path_part(name)}", body


class _DeleteTemplates(Runner):
    endpoint = ""

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        templates = mandatory(params, "templates", self.name)
        only_if_exists = params.get("only-if-exists", True)
        options = request_options(params)
        _, headers, timeout = options
        count = 0
        for entry in templates:
            if isinstance(entry, str):
                name, delete_matching_indices, pattern = entry, False, None
            else:
                name, delete_matching_indices, pattern = entry
            path = f"/{self.endpoint}/{path_part(name)}"
            outcome = await delete_one(
                es, path, options, head=path if only_if_exists else None, missing_ok=True
            )
            if isinstance(outcome, RawResponse):
                return failed(outcome, weight=count)
            count += outcome
            # Only a non-empty pattern: deleting "" would address every index.
            if delete_matching_indices and pattern:
                matched = await delete_matching(es, pattern, headers, timeout, query=None, missing_ok=True)
                if isinstance(matched, RawResponse):
                    return failed(matched, weight=count)
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
