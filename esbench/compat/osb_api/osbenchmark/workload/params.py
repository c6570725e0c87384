"""OSB's ``osbenchmark.workload.params`` (2.4.0): param sources, Rally's under the same names."""

from esrally.track.params import *  # noqa: F403
from esrally.track.params import (  # noqa: F401  (names OSB plugins import explicitly)
    BulkIndexParamSource,
    CreateComponentTemplateParamSource,
    CreateComposableTemplateParamSource,
    CreateTemplateParamSource,
    DelegatingParamSource,
    IndexIdConflict,
    ParamSource,
    Slice,
)
