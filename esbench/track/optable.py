"""The table of operation types: one :class:`OpType` descriptor per type, the single place that
names a type.

Everything esbench keeps per operation type is derived from :data:`OPERATION_TYPES`:
:mod:`esbench.track.optypes` (Rally's built-in and administrative types), the operation modules of
:mod:`esbench.requirements.catalog`, the runners and param sources of a new registry
(``esbench.driver.worker.runners.builtin_runners``, ``esbench.driver.worker.params.builtin_param_sources``)
and the ``esrally`` shim's ``OperationType`` enum and runner classes (:mod:`esbench.compat`).
``tests/unit/track/test_optable.py`` fails when a runner exists without a descriptor or a
descriptor names something that does not exist.

The track layer sits at the bottom of the import graph, so a descriptor names its runner and param
source as ``"module:attribute"`` strings; the driver imports them (``esbench.driver.worker.refs``).

Sources: Rally 2.13, ``esrally/track/track.py`` ``OperationType`` (declaration order, ids, the
``admin_op`` flag) and ``esrally/driver/runner.py`` (``register_default_runners``: which runners are
wrapped in ``Retry``, the runner class names); Elasticsearch's REST handlers for the modules (see
:mod:`esbench.requirements.catalog`).
OpenSearch Benchmark's own types follow Rally's: OSB 2.4.0, ``osbenchmark/workload/workload.py``
``OperationType`` (ids in ``osb_id``, the admin flag) and ``osbenchmark/worker_coordinator/runner.py``
``register_default_runners`` (``Retry`` wrapping). The types OSB sends over Kafka or gRPC have no
runner here: their descriptor carries the reason (``refused``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Retries(StrEnum):
    """How the registry wraps a built-in runner (Rally's ``register_default_runners``)."""

    #: Not wrapped: not idempotent (bulk, force-merge, snapshots...) or measured as it comes (searches).
    NEVER = "never"
    #: ``Retry(runner)``: retried as the operation's ``retries``/``retry-*`` params say.
    ON_REQUEST = "on-request"
    #: ``Retry(runner, retry_until_success=True)``: retried until it succeeds.
    UNTIL_SUCCESS = "until-success"


@dataclass(frozen=True, kw_only=True)
class OpType:
    """One operation type.

    Attributes:
        name: the ``operation-type`` of a track, e.g. ``"bulk"``.
        runner: ``"module:attribute"`` of the runner class; instantiated without arguments (with
            the table of all runners when ``composite``), its ``name`` attribute equals ``name``.
        param_source: ``"module:attribute"`` of the built-in param source class, called
            ``(track, params, operation_name=..., corpora=...)``; None = Rally's default source
            (the operation's params as they are).
        admin: administrative: left out of the summary report unless the operation sets
            ``include-in-reporting: true`` (Rally's ``admin_op``).
        retries: how the runner is wrapped (:class:`Retries`).
        module: the Elasticsearch module whose REST handlers serve the operation (``GET
            _nodes/plugins`` name), None when every node serves it.
        rally_id: the value of Rally's ``OperationType`` member; None for esbench's own types
            (not offered to plugins as Rally's, not "built-in" for :mod:`esbench.track.optypes`).
        rally_runner: the name of Rally's runner class for this type in ``esrally.driver.runner``
            (``"BulkIndex"``), offered to plugins by the shim; None when esbench offers none.
        composite: the runner is built with the table of all runners (Rally's ``runner_for``).
        osb_id: the value of OSB 2.4.0's ``OperationType`` member for OpenSearch Benchmark's own
            types (``osbenchmark/workload/workload.py``); None for the others.
        refused: why esbench cannot run this type here (a paragraph: what, why, what to use
            instead); such a type has no runner (``runner`` is None) and a track that uses it is
            refused when it is loaded.
    """

    name: str
    runner: str | None
    param_source: str | None = None
    admin: bool = False
    retries: Retries = Retries.NEVER
    module: str | None = None
    rally_id: int | None = None
    rally_runner: str | None = None
    composite: bool = False
    osb_id: int | None = None
    refused: str | None = None

    @property
    def rally_name(self) -> str:
        """Rally's ``OperationType`` member name: ``"wait-for-transform"`` -> ``"WaitForTransform"``."""
        return "".join(part.capitalize() for part in self.name.split("-"))


_R = "esbench.driver.worker.runners"
_P = "esbench.driver.worker.params"

_GRPC = (
    "OpenSearch Benchmark sends this operation over gRPC (the opensearch-protobufs messages, to the "
    "transport-grpc plugin's port 9400). esbench talks to the cluster over HTTP only and has no gRPC "
    "client, and the OpenSearch 2.x distribution does not serve gRPC unless the experimental "
    "transport-grpc plugin is installed and enabled. Use the HTTP operation instead: {instead}."
)
_KAFKA = (
    "OpenSearch Benchmark produces this operation's documents as messages to a Kafka topic (aiokafka) "
    "for OpenSearch's pull-based ingestion to read. esbench has no Kafka producer, and the cluster "
    "would need the ingestion-kafka plugin and a Kafka broker. Index the documents with the 'bulk' "
    "operation instead."
)

# fmt: off
#: Every operation type, Rally's in the declaration order of its ``OperationType`` enum, then
#: esbench's own.
OPERATION_TYPES: tuple[OpType, ...] = (
    OpType(name="index-stats", runner=f"{_R}.indices:IndexStats", retries=Retries.ON_REQUEST, rally_id=1,
           rally_runner="IndicesStats"),
    OpType(name="node-stats", runner=f"{_R}.cluster:NodeStats", rally_id=2, rally_runner="NodeStats"),
    OpType(name="search", runner=f"{_R}.search:Search", param_source=f"{_P}.search:SearchParamSource",
           rally_id=3, rally_runner="Query"),
    OpType(name="bulk", runner=f"{_R}.bulk:Bulk", param_source=f"{_P}.bulk:BulkParamSource", rally_id=4,
           rally_runner="BulkIndex"),
    OpType(name="raw-request", runner=f"{_R}.misc:RawRequest",
           param_source=f"{_P}.search:RawRequestParamSource", rally_id=5, rally_runner="RawRequest"),
    OpType(name="wait-for-recovery", runner=f"{_R}.index_admin:WaitForRecovery", retries=Retries.ON_REQUEST,
           rally_id=6),
    OpType(name="wait-for-snapshot-create", runner=f"{_R}.snapshot:WaitForSnapshotCreate",
           retries=Retries.ON_REQUEST, rally_id=7),
    OpType(name="composite", runner=f"{_R}.composite:Composite",
           param_source=f"{_P}.operations:CompositeParamSource", rally_id=8, composite=True),
    OpType(name="submit-async-search", runner=f"{_R}.async_search:SubmitAsyncSearch", rally_id=9),
    OpType(name="get-async-search", runner=f"{_R}.async_search:GetAsyncSearch", retries=Retries.UNTIL_SUCCESS,
           rally_id=10),
    OpType(name="delete-async-search", runner=f"{_R}.async_search:DeleteAsyncSearch", rally_id=11),
    OpType(name="paginated-search", runner=f"{_R}.search:PaginatedSearch",
           param_source=f"{_P}.search:SearchParamSource", rally_id=12),
    OpType(name="scroll-search", runner=f"{_R}.search:ScrollSearch",
           param_source=f"{_P}.search:SearchParamSource", rally_id=13),
    OpType(name="open-point-in-time", runner=f"{_R}.misc:OpenPointInTime",
           param_source=f"{_P}.admin:OpenPointInTimeParamSource", rally_id=14,
           rally_runner="OpenPointInTime"),
    OpType(name="close-point-in-time", runner=f"{_R}.misc:ClosePointInTime",
           param_source=f"{_P}.admin:ClosePointInTimeParamSource", rally_id=15,
           rally_runner="ClosePointInTime"),
    OpType(name="sql", runner=f"{_R}.sql:Sql", module="x-pack-sql", rally_id=16),
    OpType(name="field-caps", runner=f"{_R}.misc:FieldCaps", rally_id=17, rally_runner="FieldCaps"),
    OpType(name="composite-agg", runner=f"{_R}.search:CompositeAgg",
           param_source=f"{_P}.search:SearchParamSource", rally_id=18),
    OpType(name="wait-for-current-snapshots-create", runner=f"{_R}.snapshot:WaitForCurrentSnapshotsCreate",
           retries=Retries.ON_REQUEST, rally_id=19),
    OpType(name="downsample", runner=f"{_R}.index_admin:Downsample",
           param_source=f"{_P}.operations:DownsampleParamSource", rally_id=20),
    OpType(name="esql", runner=f"{_R}.sql:Esql", module="x-pack-esql", rally_id=21),
    OpType(name="esql-profile", runner=f"{_R}.sql:EsqlProfile", rally_id=59),
    OpType(name="force-merge", runner=f"{_R}.indices:ForceMerge",
           param_source=f"{_P}.admin:ForceMergeParamSource", admin=True, rally_id=22,
           rally_runner="ForceMerge"),
    OpType(name="cluster-health", runner=f"{_R}.cluster:ClusterHealth", admin=True,
           retries=Retries.ON_REQUEST, rally_id=23, rally_runner="ClusterHealth"),
    OpType(name="put-pipeline", runner=f"{_R}.cluster:PutPipeline", admin=True, retries=Retries.ON_REQUEST,
           rally_id=24, rally_runner="PutPipeline"),
    OpType(name="refresh", runner=f"{_R}.indices:Refresh", admin=True, retries=Retries.ON_REQUEST,
           rally_id=25, rally_runner="Refresh"),
    OpType(name="create-index", runner=f"{_R}.indices:CreateIndex",
           param_source=f"{_P}.admin:CreateIndexParamSource", admin=True, retries=Retries.ON_REQUEST,
           rally_id=26, rally_runner="CreateIndex"),
    OpType(name="delete-index", runner=f"{_R}.indices:DeleteIndex",
           param_source=f"{_P}.admin:DeleteIndexParamSource", admin=True, retries=Retries.ON_REQUEST,
           rally_id=27, rally_runner="DeleteIndex"),
    OpType(name="create-index-template", runner=f"{_R}.templates:CreateIndexTemplate",
           param_source=f"{_P}.admin:CreateIndexTemplateParamSource", admin=True, retries=Retries.ON_REQUEST,
           rally_id=28, rally_runner="CreateIndexTemplate"),
    OpType(name="delete-index-template", runner=f"{_R}.templates:DeleteIndexTemplate",
           param_source=f"{_P}.admin:DeleteIndexTemplateParamSource", admin=True, retries=Retries.ON_REQUEST,
           rally_id=29, rally_runner="DeleteIndexTemplate"),
    OpType(name="shrink-index", runner=f"{_R}.index_admin:ShrinkIndex", admin=True,
           retries=Retries.ON_REQUEST, rally_id=30),
    OpType(name="create-ml-datafeed", runner=f"{_R}.ml:CreateMlDatafeed", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-ml", rally_id=31),
    OpType(name="delete-ml-datafeed", runner=f"{_R}.ml:DeleteMlDatafeed", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-ml", rally_id=32),
    OpType(name="start-ml-datafeed", runner=f"{_R}.ml:StartMlDatafeed", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-ml", rally_id=33),
    OpType(name="stop-ml-datafeed", runner=f"{_R}.ml:StopMlDatafeed", admin=True, retries=Retries.ON_REQUEST,
           module="x-pack-ml", rally_id=34),
    OpType(name="create-ml-job", runner=f"{_R}.ml:CreateMlJob", admin=True, retries=Retries.ON_REQUEST,
           module="x-pack-ml", rally_id=35),
    OpType(name="delete-ml-job", runner=f"{_R}.ml:DeleteMlJob", admin=True, retries=Retries.ON_REQUEST,
           module="x-pack-ml", rally_id=36),
    OpType(name="open-ml-job", runner=f"{_R}.ml:OpenMlJob", admin=True, retries=Retries.ON_REQUEST,
           module="x-pack-ml", rally_id=37),
    OpType(name="close-ml-job", runner=f"{_R}.ml:CloseMlJob", admin=True, retries=Retries.ON_REQUEST,
           module="x-pack-ml", rally_id=38),
    OpType(name="sleep", runner=f"{_R}.misc:Sleep", param_source=f"{_P}.admin:SleepParamSource", admin=True,
           rally_id=39, rally_runner="Sleep"),
    OpType(name="delete-snapshot-repository", runner=f"{_R}.snapshot:DeleteSnapshotRepository", admin=True,
           retries=Retries.ON_REQUEST, rally_id=40),
    OpType(name="create-snapshot-repository", runner=f"{_R}.snapshot:CreateSnapshotRepository", admin=True,
           retries=Retries.ON_REQUEST, rally_id=41),
    OpType(name="create-snapshot", runner=f"{_R}.snapshot:CreateSnapshot", admin=True, rally_id=42),
    OpType(name="restore-snapshot", runner=f"{_R}.snapshot:RestoreSnapshot", admin=True, rally_id=43),
    OpType(name="put-settings", runner=f"{_R}.cluster:PutSettings", admin=True, retries=Retries.ON_REQUEST,
           rally_id=44, rally_runner="PutSettings"),
    OpType(name="create-transform", runner=f"{_R}.transform:CreateTransform", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-transform", rally_id=45),
    OpType(name="start-transform", runner=f"{_R}.transform:StartTransform", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-transform", rally_id=46),
    OpType(name="wait-for-transform", runner=f"{_R}.transform:WaitForTransform", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-transform", rally_id=47),
    OpType(name="delete-transform", runner=f"{_R}.transform:DeleteTransform", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-transform", rally_id=48),
    OpType(name="create-data-stream", runner=f"{_R}.indices:CreateDataStream",
           param_source=f"{_P}.admin:CreateDataStreamParamSource", admin=True, retries=Retries.ON_REQUEST,
           module="data-streams", rally_id=49, rally_runner="CreateDataStream"),
    OpType(name="delete-data-stream", runner=f"{_R}.indices:DeleteDataStream",
           param_source=f"{_P}.admin:DeleteDataStreamParamSource", admin=True, retries=Retries.ON_REQUEST,
           module="data-streams", rally_id=50, rally_runner="DeleteDataStream"),
    OpType(name="create-composable-template", runner=f"{_R}.templates:CreateComposableTemplate",
           param_source=f"{_P}.admin:CreateComposableTemplateParamSource", admin=True,
           retries=Retries.ON_REQUEST, rally_id=51, rally_runner="CreateComposableTemplate"),
    OpType(name="delete-composable-template", runner=f"{_R}.templates:DeleteComposableTemplate",
           param_source=f"{_P}.admin:DeleteComposableTemplateParamSource", admin=True,
           retries=Retries.ON_REQUEST, rally_id=52, rally_runner="DeleteComposableTemplate"),
    OpType(name="create-component-template", runner=f"{_R}.templates:CreateComponentTemplate",
           param_source=f"{_P}.admin:CreateComponentTemplateParamSource", admin=True,
           retries=Retries.ON_REQUEST, rally_id=53, rally_runner="CreateComponentTemplate"),
    OpType(name="delete-component-template", runner=f"{_R}.templates:DeleteComponentTemplate",
           param_source=f"{_P}.admin:DeleteComponentTemplateParamSource", admin=True,
           retries=Retries.ON_REQUEST, rally_id=54, rally_runner="DeleteComponentTemplate"),
    OpType(name="transform-stats", runner=f"{_R}.transform:TransformStats", admin=True,
           retries=Retries.ON_REQUEST, rally_id=55),
    OpType(name="create-ilm-policy", runner=f"{_R}.ilm:CreateIlmPolicy", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-ilm", rally_id=56),
    OpType(name="delete-ilm-policy", runner=f"{_R}.ilm:DeleteIlmPolicy", admin=True,
           retries=Retries.ON_REQUEST, module="x-pack-ilm", rally_id=57),
    OpType(name="run-until", runner=f"{_R}.run_until:RunUntil", retries=Retries.ON_REQUEST, rally_id=58),
    OpType(name="templated-request", runner=f"{_R}.templated:TemplatedRequest",
           param_source=f"{_P}.template_source:TemplatedRequestParamSource"),
    # OpenSearch Benchmark's own types, in the order of OSB 2.4.0's OperationType; which are
    # wrapped in Retry is OSB's register_default_runners.
    OpType(name="create-point-in-time", runner=f"{_R}.osb_admin:CreatePointInTime", osb_id=14),
    OpType(name="delete-point-in-time", runner=f"{_R}.osb_admin:DeletePointInTime", osb_id=15),
    OpType(name="list-all-point-in-time", runner=f"{_R}.osb_admin:ListAllPointInTime", osb_id=16),
    OpType(name="vector-search", runner=f"{_R}.vector:VectorSearch",
           param_source=f"{_P}.vector:VectorSearchParamSource", osb_id=17),
    OpType(name="bulk-vector-data-set", runner=f"{_R}.vector:BulkVectorDataSet",
           param_source=f"{_P}.vector:BulkVectorsParamSource", osb_id=18),
    OpType(name="train-knn-model", runner=f"{_R}.osb_admin:TrainKnnModel", retries=Retries.ON_REQUEST,
           osb_id=19),
    OpType(name="delete-knn-model", runner=f"{_R}.osb_admin:DeleteKnnModel", retries=Retries.ON_REQUEST,
           osb_id=20),
    OpType(name="produce-stream-message", runner=None, osb_id=21, refused=_KAFKA),
    OpType(name="proto-bulk", runner=None, osb_id=201, refused=_GRPC.format(instead="'bulk'")),
    OpType(name="proto-search", runner=None, osb_id=202, refused=_GRPC.format(instead="'search'")),
    OpType(name="proto-vector-search", runner=None, osb_id=203,
           refused=_GRPC.format(instead="'vector-search'")),
    OpType(name="proto-bulk-vector-data-set", runner=None, osb_id=204,
           refused=_GRPC.format(instead="'bulk-vector-data-set'")),
    OpType(name="delete-pipeline", runner=f"{_R}.osb_admin:DeletePipeline", admin=True,
           retries=Retries.ON_REQUEST, osb_id=25),
    OpType(name="create-search-pipeline", runner=f"{_R}.osb_admin:CreateSearchPipeline", admin=True,
           retries=Retries.ON_REQUEST, osb_id=48),
    OpType(name="delete-ml-model", runner=f"{_R}.osb_ml:DeleteMlModel", admin=True,
           retries=Retries.ON_REQUEST, osb_id=49),
    OpType(name="register-ml-model", runner=f"{_R}.osb_ml:RegisterMlModel", admin=True,
           retries=Retries.ON_REQUEST, osb_id=50),
    OpType(name="deploy-ml-model", runner=f"{_R}.osb_ml:DeployMlModel", admin=True,
           retries=Retries.ON_REQUEST, osb_id=51),
    OpType(name="update-concurrent-segment-search-settings",
           runner=f"{_R}.osb_admin:UpdateConcurrentSegmentSearchSettings", admin=True,
           retries=Retries.ON_REQUEST, osb_id=52),
    OpType(name="create-ml-connector", runner=f"{_R}.osb_ml:CreateMlConnector", admin=True,
           retries=Retries.ON_REQUEST, osb_id=53),
    OpType(name="register-remote-ml-model", runner=f"{_R}.osb_ml:RegisterRemoteMlModel", admin=True,
           retries=Retries.ON_REQUEST, osb_id=54),
    OpType(name="delete-ml-connector", runner=f"{_R}.osb_ml:DeleteMlConnector", admin=True,
           retries=Retries.ON_REQUEST, osb_id=55),
)
# fmt: on
