"""Root of the ``esrally`` compatibility package (see :mod:`esbench.compat.shim`).

This directory is put on the module search path (after everything else) while a track plugin
loads, so that ``import esrally`` finds ``./esrally`` when the real Rally is not installed. Nothing
else lives here, so no other top-level name becomes importable.
"""
