import random


class PureTermsQueryParamSource:
    def __init__(self, track, params, **kwargs):
        self._params = params
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        return {"body": {"query": {"terms": {"name.raw": [str(random.randint(1, 100))]}}}, "index": None}


def register(registry):
    registry.register_param_source("pure-terms-query-source", PureTermsQueryParamSource)
