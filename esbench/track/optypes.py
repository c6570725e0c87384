"""Rally's built-in operation types and which of them are administrative.

Source: ``esrally/track/track.py``, ``OperationType`` (esrally 2.13): each member carries an
``admin_op`` flag. Administrative operations are left out of the summary report unless the
operation sets ``include-in-reporting: true``; other types (and types esbench does not know, e.g.
from track plugins) are reported by default.
"""

from __future__ import annotations

NON_ADMIN_TYPES: frozenset[str] = frozenset(
    {
        "index-stats",
        "node-stats",
        "search",
        "bulk",
        "raw-request",
        "wait-for-recovery",
        "wait-for-snapshot-create",
        "composite",
        "submit-async-search",
        "get-async-search",
        "delete-async-search",
        "paginated-search",
        "scroll-search",
        "open-point-in-time",
        "close-point-in-time",
        "sql",
        "field-caps",
        "composite-agg",
        "wait-for-current-snapshots-create",
        "downsample",
        "esql",
        "esql-profile",
        "run-until",
    }
)

ADMIN_TYPES: frozenset[str] = frozenset(
    {
        "force-merge",
        "cluster-health",
        "put-pipeline",
        "refresh",
        "create-index",
        "delete-index",
        "create-index-template",
        "delete-index-template",
        "shrink-index",
        "create-ml-datafeed",
        "delete-ml-datafeed",
        "start-ml-datafeed",
        "stop-ml-datafeed",
        "create-ml-job",
        "delete-ml-job",
        "open-ml-job",
        "close-ml-job",
        "sleep",
        "delete-snapshot-repository",
        "create-snapshot-repository",
        "create-snapshot",
        "restore-snapshot",
        "put-settings",
        "create-transform",
        "start-transform",
        "wait-for-transform",
        "delete-transform",
        "create-data-stream",
        "delete-data-stream",
        "create-composable-template",
        "delete-composable-template",
        "create-component-template",
        "delete-component-template",
        "transform-stats",
        "create-ilm-policy",
        "delete-ilm-policy",
    }
)

BUILTIN_TYPES: frozenset[str] = NON_ADMIN_TYPES | ADMIN_TYPES


def is_builtin(operation_type: str) -> bool:
    """True if ``operation_type`` is one of Rally's built-in operation types."""
    return operation_type in BUILTIN_TYPES


def is_admin(operation_type: str) -> bool:
    """True if ``operation_type`` is a built-in administrative operation (not reported by default)."""
    return operation_type in ADMIN_TYPES
