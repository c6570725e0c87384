"""Create and delete named resources one request at a time: the shape shared by the index, data
stream and template runners (:mod:`.indices`, :mod:`.templates`).

Each helper sends its requests in order and stops at the first failure, whose response it hands
back so that the runner reports it with the weight reached so far (Rally's runners do the same).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    RallyParams,
    RunnerResult,
    failed,
    json_or_none,
    path_part,
    request_options,
    send,
)

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.failures import DefaultTimeout

#: What :func:`~.base.request_options` returns: (query parameters, headers, timeout).
Options: TypeAlias = "tuple[dict[str, object], dict[str, str] | None, float | DefaultTimeout]"


#: One entry of a put_each list: an (index, body) pair, a template pair, a data stream name.
_Entry = TypeVar("_Entry")


async def concrete_indices(
    es: EsbenchClient,
    pattern: object,
    headers: Mapping[str, str] | None = None,
    timeout: float | DefaultTimeout | None = None,
) -> list[str] | RawResponse:
    """The names of the indices matching ``pattern`` (open or closed), or the error response.

    Elasticsearch 8 refuses wildcard deletions by default (``action.destructive_requires_name``), so
    patterns are resolved to names first.
    """
    response = await send(
        es,
        "GET",
        f"/{path_part(pattern)}/_settings/index.uuid",
        query={"expand_wildcards": "open,closed", "allow_no_indices": "true", "ignore_unavailable": "true"},
        headers=headers,
        timeout=timeout,
    )
    if response.status == 404:
        return []
    if response.status >= 400:
        return response
    return sorted((json_or_none(response) or {}).keys())


def has_wildcard(name: object) -> bool:
    """True for index expressions with ``*`` (or ``_all``)."""
    text = ",".join(name) if isinstance(name, list | tuple) else str(name)
    return "*" in text or text == "_all"


async def put_each(
    es: EsbenchClient,
    params: RallyParams,
    entries: Sequence[_Entry],
    request: Callable[[_Entry], tuple[str, object]],
) -> RunnerResult:
    """``PUT`` one request per entry, in order, with the operation's ``request-params``,
    ``headers`` and ``request-timeout``.

    Args:
        es: the client.
        params: the operation's parameters (for :func:`~.base.request_options`).
        entries: the track's entries (index ``(name, body)`` pairs, data stream names...).
        request: ``(path, body or None)`` of an entry, called just before its request.

    Returns:
        weight = entries created: all of them, or those before the first failed response
        (then reported as :func:`~.base.failed`).
    """
    query, headers, timeout = request_options(params)
    for created, entry in enumerate(entries):
        path, body = request(entry)
        response = await send(es, "PUT", path, query=query, body=body, headers=headers, timeout=timeout)
        if response.status >= 400:
            return failed(response, weight=created)
    return RunnerResult(weight=len(entries))


async def count_each(
    entries: Iterable[object], step: Callable[[object], Awaitable[int | bool | RawResponse]]
) -> RunnerResult:
    """Run ``step`` for each entry in order, adding up what it counts (an int, or True for one).

    Returns:
        weight = the total; at the first failed response, that response as
        :func:`~.base.failed` with the weight reached before it.
    """
    done = 0
    for entry in entries:
        outcome = await step(entry)
        if isinstance(outcome, RawResponse):
            return failed(outcome, weight=done)
        done += outcome
    return RunnerResult(weight=done)


async def delete_one(
    es: EsbenchClient, path: str, options: Options, *, head: str | None, missing_ok: bool
) -> bool | RawResponse:
    """``DELETE path``; with ``head``, only if ``HEAD head`` does not answer 404.

    Args:
        missing_ok: a 404 to the ``DELETE`` means nothing was deleted, not a failure.

    Returns:
        True if deleted, False if absent, else the failed response.
    """
    query, headers, timeout = options
    if head is not None:
        check = await send(es, "HEAD", head, headers=headers, timeout=timeout)
        if check.status == 404:
            return False
    response = await send(es, "DELETE", path, query=query, headers=headers, timeout=timeout)
    if response.status == 404 and missing_ok:
        return False
    if response.status >= 400:
        return response
    return True


async def delete_matching(
    es: EsbenchClient,
    pattern: object,
    headers: Mapping[str, str] | None,
    timeout: float | DefaultTimeout | None,
    *,
    query: Mapping[str, object] | None,
    missing_ok: bool,
) -> int | RawResponse:
    """Delete the indices matching ``pattern`` in one request, by name (:func:`concrete_indices`).

    Returns:
        The number of indices deleted (0 when none matched, or all were gone with ``missing_ok``),
        else the failed response (of the name lookup or of the deletion).
    """
    names = await concrete_indices(es, pattern, headers, timeout)
    if isinstance(names, RawResponse):
        return names
    if not names:
        return 0
    response = await send(es, "DELETE", f"/{path_part(names)}", query=query, headers=headers, timeout=timeout)
    if response.status >= 400 and not (missing_ok and response.status == 404):
        return response
    return len(names)
