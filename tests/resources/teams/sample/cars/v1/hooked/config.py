# A bootstrap hook in Rally's style; esbench refuses to provision a car that would need it.
def register(registry):
    pass
