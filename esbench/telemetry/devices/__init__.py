"""The telemetry devices, one module each; :mod:`esbench.telemetry.registry` lists them."""
