"""esbench's version, on the ground floor: stages that record it (corpus bundles, planning
definitions, race results) import it from here rather than from the ``esbench`` package, whose
``__init__`` names the public API of every stage (see ``.importlinter``)."""

from __future__ import annotations

#: The release this tree is (PEP 440); ``esbench.__version__`` re-exports it.
__version__ = "0.1.0"
