"""The side-by-side benchmark of esbench, Rally and wrk (issue #5).

Entry point: ``benchmarks/side_by_side.py``.

Modules: ``cases`` (what is measured), ``tools`` (running and parsing each tool), ``treerun``
(process-tree CPU/memory measurement), ``nginx_stub`` (instant-response Elasticsearch stand-in),
``corpora`` (shared corpus files), ``node`` (real node via esbench's provisioning), ``report``
(medians, ratios, tables), ``runner`` (the whole run).
"""
