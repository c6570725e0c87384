"""rally-tracks' ``http_logs`` in test mode with ``--enable-assertions``: Rally 2.13 and esbench on the
same fresh node (not a test: prints how each race ended).

Run (as root: the races run in a private namespace, benchmarks/isolated_rally_compare.sh)::

    RALLY=/path/to/a/copy/of/esrally python benchmarks/http_logs_assertions_oracle.py OUTDIR \\
        [--tracks-git-dir /work/.mirror/elastic+rally-tracks/repo]

What it does, and why:

* takes ``http_logs`` from a rally-tracks git directory (``git archive HEAD http_logs``);
* its ``-1k`` test-mode corpora are on Elastic's download server, which is not reachable here: it
  writes seven of its own (1,000 documents each, ``documents-DAY-1k.json.bz2``) that fit the
  track's strict mapping (``@timestamp`` in epoch seconds around 1998-05-01, ``clientip``,
  ``request``, ``status``, ``size``), from a fixed seed;
* the Maven integ-test node has no ``mapper-extras`` module, so ``match_only_text`` becomes
  ``text`` in ``index.json`` (for both tools alike);
* runs both tools with ``--test-mode --enable-assertions`` and prints each one's exit status and the
  line that says why the race ended.
"""

from __future__ import annotations

import argparse
import bz2
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DAYS = ("181998", "191998", "201998", "211998", "221998", "231998", "241998")
#: 1998-05-01T00:00:00Z, the start of the track's 200s-in-range/400s-in-range window.
MAY_FIRST = 893980800


def write_corpus(directory: Path, seed: int = 39) -> None:
    rng = random.Random(seed)
    requests = ["GET / HTTP/1.0", "GET /images/hm_bg.jpg HTTP/1.0", "GET /english/index.html HTTP/1.0"]
    directory.mkdir(parents=True, exist_ok=True)
    for i, day in enumerate(DAYS):
        start = MAY_FIRST - 86400 * (len(DAYS) - 1 - i)
        docs = (
            {
                "@timestamp": start + n * 60,
                "clientip": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
                "request": rng.choice(requests),
                "status": rng.choice([200, 200, 200, 304, 404, 400]),
                "size": rng.randrange(100, 50000),
            }
            for n in range(1000)
        )
        with bz2.open(directory / f"documents-{day}-1k.json.bz2", "wt") as f:
            f.writelines(json.dumps(d) + "\n" for d in docs)


def extract_track(git_dir: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "HEAD", "http_logs"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    track = into / "http_logs"
    index = track / "index.json"
    index.write_text(index.read_text().replace('"type": "match_only_text"', '"type": "text"'))
    return track


def ending(out: Path, tool: str) -> str:
    text = (out / f"{tool}.out").read_text(errors="replace")
    lines = [ln.strip() for ln in text.splitlines() if re.search(r"Expected \[|Cannot run task|ERROR\]", ln)]
    return lines[-1] if lines else "(no error line: the race completed)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--tracks-git-dir", default="/work/.mirror/elastic+rally-tracks/repo")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    track = extract_track(args.tracks_git_dir, out / "tracks")
    write_corpus(out / "corpus")
    env = {**os.environ, "CORPUS_FILES": f"http_logs={out / 'corpus'}"}
    command = ["bash", str(REPO / "benchmarks/isolated_rally_compare.sh"), str(out / "races"), str(track)]
    command += ["--test-mode", "--enable-assertions"]
    print(" ".join(command))
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    print(proc.stdout, end="")
    for tool in ("rally", "esbench"):
        print(f"{tool}: {ending(out / 'races', tool)}")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
