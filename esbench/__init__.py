"""esbench: a fast, exact, Rally-compatible benchmark harness for Elasticsearch."""

from esbench.exceptions import EsbenchError

__version__ = "0.1.0"

__all__ = ["EsbenchError", "__version__"]
