"""OSB's ``osbenchmark.workload`` (2.4.0): the workload classes (``from osbenchmark.workload import
Workload``), as OSB's ``from .workload import *`` gives them."""

from osbenchmark.workload import workload as _workload
from osbenchmark.workload.workload import *  # noqa: F403 - OSB's own "from .workload import *"

__all__ = list(_workload.__all__)
