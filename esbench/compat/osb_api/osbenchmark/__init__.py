"""esbench's stand-in for OpenSearch Benchmark's ``osbenchmark`` package: the names workload
plugins (``workload.py``) import.

Only used when OpenSearch Benchmark itself is not installed (see ``esbench.compat.shim``). OSB 2.x
forked Rally 2.x; its plugin API is Rally's with OSB's words (workload, test procedure, worker
coordinator), so each module here gives Rally's implementation (the ``esrally`` stand-in) under
OSB's names. Supported modules and their OSB sources are listed in docs/tracks.md ("OpenSearch
Benchmark workloads").
"""

from osbenchmark import exceptions, utils  # noqa: F401  (plugins use osbenchmark.exceptions after "import osbenchmark")

__version__ = "2.4.0"
PROGRAM_NAME = "esbench"
DOC_LINK = "https://opensearch.org/docs/latest/benchmark/"
