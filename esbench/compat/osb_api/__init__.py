"""Holds ``osbenchmark``, esbench's stand-in for OpenSearch Benchmark's package (see
``esbench.compat.shim``)."""
