"""Which plugins of the public rally-tracks repository import and register with esbench.

For every track directory of a rally-tracks checkout that ships a ``track.py`` (or a ``track/``
package), a fresh Python process imports the plugin the way ``esbench race`` does
(:func:`esbench.track.plugins.load_plugins`, with esbench's ``esrally`` compatibility package when
Rally is not installed) and calls its ``register(registry)``. Prints one line per track and the
count; exits 0. The tracks are read, never copied into this repository.

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
from esbench.driver.registry import default_registry
from esbench.exceptions import EsbenchError
from esbench.track.model import Track
from esbench.track.plugins import load_plugins
root = Path(sys.argv[1])
registry = default_registry()
builtin = set(registry.operation_types())
try:
    load_plugins(Track(name=root.name, root=root, challenges=()), registry)
except EsbenchError as e:
    print(json.dumps({"ok": False, "error": str(e)}))
else:
    print(json.dumps({
        "ok": True,
        "runners": sorted(set(registry.operation_types()) - builtin),
        "param_sources": len(registry._param_sources),
        "schedulers": len(registry.schedulers) - 2,
        "processors": [type(p).__name__ for p in registry.track_processors],
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
            [sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, timeout=300
        )
        try:
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            results[name] = {"ok": False, "error": f"crashed (exit {proc.returncode}): {tail[0]}"}
        r = results[name]
        if r["ok"]:
            print(f"OK    {name}: runners {r['runners']}, processors {r['processors']}")
        else:
            print(f"FAIL  {name}: {r['error']}")
    ok = sum(1 for r in results.values() if r["ok"])
    print(f"\n{ok} of {len(results)} track plugins import and register with esbench")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
