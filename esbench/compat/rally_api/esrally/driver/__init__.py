"""Rally's ``esrally.driver`` package: only ``esrally.driver.runner`` is provided for plugins."""
