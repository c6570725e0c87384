"""Which plugins of the public rally-tracks repository import, register and load with esbench.

For every track directory of a rally-tracks checkout that ships a ``track.py`` (or a ``track/``
package), a fresh Python process

1. loads the track as ``esbench race`` does (:func:`esbench.track.load_track`, default track
   params), imports the plugin (:func:`esbench.compat.plugins.load_plugins`, with esbench's
   ``esrally`` compatibility package when Rally is not installed) and calls its
   ``register(registry)``;
2. runs ``on_after_load_track`` of the track processors Rally would run on the Rally-shaped track
   (:mod:`esbench.compat.trackview`) and converts the result back into esbench's model
   (:func:`esbench.compat.trackconvert.from_rally`). ``on_prepare_track`` is not called: it
   generates or downloads data (``has_privileges``'s downloads from the network).

Prints one line per track and the count; exits 0. The tracks are read, never copied into this
repository.

    git -C /path/to/rally-tracks-mirror archive HEAD | tar -x -C /tmp/rally-tracks
    python3 benchmarks/rally_tracks_plugins.py /tmp/rally-tracks
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, sys
from pathlib import Path
from esbench.compat.processors import effective_processors
from esbench.compat.trackconvert import from_rally, to_rally
from esbench.driver.worker.registry import default_registry
from esbench.exceptions import EsbenchError
from esbench.track import load_track
from esbench.compat.plugins import load_plugins
root = Path(sys.argv[1])
registry = default_registry()
builtin = set(registry.operation_types())
stage = "load"
try:
    track = load_track(path=root)
    stage = "register"
    load_plugins(track, registry)
    stage = "on_after_load_track"
    processors = effective_processors(registry.track_processors)
    view = to_rally(track)
    for processor in processors:
        processor.on_after_load_track(view)
    stage = "conversion back"
    processed = from_rally(view, track)
except (EsbenchError, Exception) as e:
    print(json.dumps({"ok": False, "error": f"{stage}: {type(e).__name__}: {e}"}))
else:
    print(json.dumps({
        "ok": True,
        "runners": sorted(set(registry.operation_types()) - builtin),
        "param_sources": len(registry._param_sources),
        "schedulers": len(registry.schedulers) - 2,
        "processors": [type(p).__name__ for p in processors],
        "challenges": len(processed.challenges),
        "corpora": [c.name for c in processed.corpora],
    }))
"""


def plugin_tracks(checkout: Path) -> list[Path]:
    """Track directories (with ``track.json``) that have a ``track.py`` or ``track/__init__.py``."""
    found = []
    for track_json in sorted(checkout.rglob("track.json")):
        root = track_json.parent
        if (root / "track.py").is_file() or (root / "track" / "__init__.py").is_file():
            found.append(root)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("checkout", type=Path, help="a rally-tracks checkout")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    results = {}
    for root in plugin_tracks(args.checkout):
        name = root.relative_to(args.checkout).as_posix()
        proc = subprocess.run(
            # cwd: the track, so that "-c" imports the esbench of the environment, not of the cwd.
            [sys.executable, "-c", _CHILD, str(root)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=root,
        )
        try:
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            results[name] = {"ok": False, "error": f"crashed (exit {proc.returncode}): {tail[0]}"}
        r = results[name]
        if r["ok"]:
            print(
                f"OK    {name}: {r['challenges']} challenges, runners {r['runners']}, "
                f"processors {r['processors']}, corpora after them {r['corpora']}"
            )
        else:
            print(f"FAIL  {name}: {r['error']}")
    ok = sum(1 for r in results.values() if r["ok"])
    print(f"\n{ok} of {len(results)} track plugins load, register and process with esbench")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
