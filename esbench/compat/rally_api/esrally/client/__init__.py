"""Rally's ``esrally.client`` package: only ``esrally.client.synchronous`` is provided."""
