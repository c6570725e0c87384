"""Move modules and rewrite every reference to them (dotted and slash forms) in one pass.

Usage: python3 tools/move_modules.py MAPPING_FILE
MAPPING_FILE has lines ``old.dotted.name new.dotted.name`` (a package moves with everything under
it). Files are moved with ``git mv``; references are rewritten in tracked text files (Python, C,
Markdown, TOML, INI, shell, YAML, setup.py). Used for issue 28's driver split.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def main(mapping_file: str) -> None:
    pairs = [
        line.split()
        for line in Path(mapping_file).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    mapping = {old: new for old, new in pairs}
    for old, new in pairs:
        src = Path(old.replace(".", "/"))
        dst = Path(new.replace(".", "/"))
        if src.is_dir():
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(src), str(dst)], check=True)
        else:
            for suffix in (".py", ".c", ".h"):
                if src.with_suffix(suffix).exists():
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    subprocess.run(
                        ["git", "mv", str(src.with_suffix(suffix)), str(dst.with_suffix(suffix))], check=True
                    )
    olds = sorted(mapping, key=len, reverse=True)
    dotted = re.compile(r"(?<![\w.])(" + "|".join(re.escape(o) for o in olds) + r")(?![\w])")
    slashed_map = {o.replace(".", "/"): n.replace(".", "/") for o, n in mapping.items()}
    slashed = re.compile(
        r"(?<![\w/])("
        + "|".join(re.escape(o) for o in sorted(slashed_map, key=len, reverse=True))
        + r")(?![\w])"
    )
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        path = Path(name)
        if path.suffix not in {
            ".py",
            ".c",
            ".h",
            ".md",
            ".toml",
            ".ini",
            ".sh",
            ".yml",
            ".yaml",
            ".cfg",
            ".txt",
            "",
        }:
            continue
        if not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        new = dotted.sub(lambda m: mapping[m.group(1)], text)
        new = slashed.sub(lambda m: slashed_map[m.group(1)], new)
        if new != text:
            path.write_text(new)


if __name__ == "__main__":
    main(sys.argv[1])
