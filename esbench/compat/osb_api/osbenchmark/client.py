"""OSB's ``osbenchmark.client`` (2.4.0): the name workload runners import from it,
``RequestContextHolder`` (see :mod:`osbenchmark.context`)."""

from osbenchmark.context import RequestContextHolder

__all__ = ["RequestContextHolder"]
