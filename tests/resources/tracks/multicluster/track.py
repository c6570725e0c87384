"""A runner that declares ``multi_cluster`` (Rally: ``esrally/driver/runner.py`` ``register_runner``
hands such a runner every cluster's client by name): each call writes one document into each
cluster, naming the cluster it was sent to, so a test can read every cluster and see that the
runner reached it. The index is created there if missing (only the default cluster is the track's
target, so ``create-index`` makes it there alone)."""


class MarkEveryCluster:
    multi_cluster = True

    def __init__(self):
        self.calls = 0

    async def __call__(self, es, params):
        self.calls += 1
        for name, client in sorted(es.items()):
            await client.index(
                index=params["index"],
                id=f"{name}-{self.calls}",
                document={"cluster": name, "call": self.calls},
                refresh="true",
            )
        return {"weight": len(es), "unit": "docs", "clusters": sorted(es)}

    def __repr__(self):
        return "mark-every-cluster"


def register(registry):
    registry.register_runner("mark-every-cluster", MarkEveryCluster(), async_runner=True)
