"""OSB's ``osbenchmark.worker_coordinator`` (2.4.0; Rally's ``esrally.driver``)."""
