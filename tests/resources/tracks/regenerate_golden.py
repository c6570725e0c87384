"""Regenerate the golden files under golden/ with the real Rally (esrally), not with esbench.

Run with the Python of a virtualenv that has esrally installed (see README.md in this directory):

    /opt/rally-venv/bin/python tests/resources/tracks/regenerate_golden.py

For every (track, case) in cases.json it writes:
  golden/<track>/<case>.render.json   Rally's render-track output (json.dumps(..., indent=2))
  golden/<track>/<case>.model.json    Rally's loaded track (TrackSpecificationReader), normalised
  golden/<track>/<case>.test-mode.json  the same after Rally's TestModeTrackProcessor
  golden/<track>/<case>.params.json   the names Rally finds in the track (referenced) and the
                                      params it would reject as unused
The template global `now` is fixed to FIXED_NOW so the files do not depend on the day.
"""

import json
import os
import sys

import jsonschema
from esrally import time as rally_time
from esrally.track import loader

FIXED_NOW = 1700000000.0
HERE = os.path.dirname(os.path.abspath(__file__))

rally_time.Clock.now = staticmethod(lambda: FIXED_NOW)


class _Cfg:
    def __init__(self, opts):
        self._opts = opts

    def opts(self, section, key, default_value=None, mandatory=True):
        return self._opts.get((section, key), default_value)


def _throughput(task):
    tp = task.target_throughput
    return None if tp is None else [tp.value, tp.unit]


def _task(t):
    params = {k: v for k, v in t.params.items() if k != "operation"}
    return {
        "name": t.name,
        "operation": {
            "name": t.operation.name,
            "type": t.operation.type,
            "params": t.operation.params,
            "param_source": t.operation.param_source,
            "include_in_reporting": t.operation.include_in_reporting,
            "meta": t.operation.meta_data,
        },
        "clients": t.clients,
        "warmup_iterations": t.warmup_iterations,
        "iterations": t.iterations,
        "warmup_time_period": t.warmup_time_period,
        "time_period": t.time_period,
        "ramp_up_time_period": t.ramp_up_time_period,
        "schedule": t.schedule,
        "target_throughput": _throughput(t),
        "completes_parent": t.completes_parent,
        "any_completes_parent": t.any_completes_parent,
        "tags": list(t.tags),
        "params": params,
        "meta": t.meta_data,
    }


def dump(t):
    schedule = lambda c: [  # noqa: E731
        {"parallel": {"clients": item._clients, "tasks": [_task(x) for x in item.tasks]}}
        if item.nested
        else _task(item)
        for item in c.schedule
    ]
    return {
        "name": t.name,
        "description": t.description or "",
        "meta": t.meta_data or {},
        "dependencies": list(t.dependencies or []),
        "indices": [{"name": i.name, "body": i.body} for i in t.indices],
        "data_streams": [d.name for d in t.data_streams],
        "templates": [
            {
                "name": x.name,
                "pattern": x.pattern,
                "content": x.content,
                "delete_matching_indices": x.delete_matching_indices,
            }
            for x in t.templates
        ],
        "composable_templates": [
            {
                "name": x.name,
                "pattern": x.pattern,
                "content": x.content,
                "delete_matching_indices": x.delete_matching_indices,
            }
            for x in t.composable_templates
        ],
        "component_templates": [{"name": x.name, "content": x.content} for x in t.component_templates],
        "corpora": [
            {
                "name": c.name,
                "meta": c.meta_data or {},
                "documents": [
                    {
                        "source_file": d.document_archive or d.document_file,
                        "document_count": d.number_of_documents,
                        "base_url": d.base_url,
                        "compressed_bytes": d.compressed_size_in_bytes,
                        "uncompressed_bytes": d.uncompressed_size_in_bytes,
                        "includes_action_and_meta_data": d.includes_action_and_meta_data,
                        "target_index": d.target_index,
                        "target_data_stream": d.target_data_stream,
                        "target_type": d.target_type,
                        "meta": d.meta_data or {},
                    }
                    for d in c.documents
                ],
            }
            for c in t.corpora
        ],
        "challenges": [
            {
                "name": c.name,
                "description": c.description or "",
                "user_info": c.user_info,
                "default": bool(c.default),
                "parameters": c.parameters,
                "meta": c.meta_data or {},
                "schedule": schedule(c),
            }
            for c in t.challenges
        ],
    }


def _write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    schema_file = os.path.join(os.path.dirname(loader.__file__), "..", "resources", "track-schema.json")
    with open(schema_file, encoding="utf-8") as f:
        schema = json.load(f)
    for track_name, track_cases in cases.items():
        track_dir = os.path.join(HERE, track_name)
        track_file = os.path.join(track_dir, "track.json")
        for case in track_cases:
            params = case["params"]
            flavor = case.get("build_flavor", "default")
            operator = case.get("serverless_operator", False)
            out = os.path.join(HERE, "golden", track_name, case["case"])
            # render-track: exactly what esrally's render_track() prints.
            rendered = loader.render_template_from_file(
                track_file, params, build_flavor=flavor, serverless_operator=operator
            )
            with open(out + ".render.json", "w", encoding="utf-8") as f:
                print(json.dumps(json.loads(rendered), indent=2), file=f)
            spec = json.loads(rendered)
            jsonschema.validate(spec, schema)
            complete = loader.CompleteTrackParams(user_specified_track_params=params)
            with open(track_file, encoding="utf-8") as f:
                assembled = loader.TemplateSource(track_dir, "track.json").replace_includes(
                    track_dir, f.read()
                )
            loader.register_all_params_in_track(assembled, complete)
            reader = loader.TrackSpecificationReader(
                track_params=params,
                complete_track_params=complete,
                build_flavor=flavor,
                serverless_operator=operator,
            )
            t = reader(track_name, spec, track_dir, track_file)
            _write(out + ".model.json", dump(t))
            _write(
                out + ".params.json",
                {
                    "referenced": complete.sorted_track_defined_params,
                    "unused": sorted(complete.unused_user_defined_track_params()),
                },
            )
            t = reader(track_name, json.loads(rendered), track_dir, track_file)
            loader.TestModeTrackProcessor(_Cfg({("track", "test.mode.enabled"): True})).on_after_load_track(t)
            _write(out + ".test-mode.json", dump(t))
            print(f"{track_name}/{case['case']}: ok", file=sys.stderr)


if __name__ == "__main__":
    main()
