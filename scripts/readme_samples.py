"""Regenerate the sample outputs in README.md from the real commands.

Every fenced ``sh`` block whose first line is ``$ .venv/bin/equilibria ...`` is run
(through this interpreter's ``equilibria`` command) and the lines after the command are
replaced by what it prints. ``--check`` changes nothing and exits 1 when a sample's
labels (each line's text with the numbers removed) no longer match the command's output,
so the README cannot drift from the program.

    python -m equilibria.scripts.readme_samples README.md [--check]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

PROMPT = "$ .venv/bin/equilibria "
BLOCK = re.compile(r"```sh\n(\$ \.venv/bin/equilibria [^\n]*)\n(.*?)```", re.S)


def run_sample(command_line: str) -> str:
    """The standard output of a README command line (``$ .venv/bin/equilibria ...``)."""
    args = shlex.split(command_line[len(PROMPT) :])
    res = subprocess.run(
        [sys.executable, "-m", "equilibria.scripts.cli", *args], capture_output=True, text=True, timeout=600
    )
    if res.returncode != 0:
        raise RuntimeError(f"'{command_line}' exited {res.returncode}: {res.stderr.strip()}")
    return res.stdout


def shape(text: str) -> list[str]:
    """The lines of ``text`` without numbers, timing lines and the concurrent race's winner:
    what must not drift."""
    number = re.compile(r"[-+]?\d[\d,]*\.?\d*(e[-+]?\d+)?")
    # which method of the concurrent race finishes first depends on the machine's load
    race = re.compile(r"concurrent:\w+")
    return [
        race.sub("concurrent", number.sub("#", line)).rstrip()
        for line in text.splitlines()
        if not line.startswith(("seconds", "peak memory"))
    ]


def regenerate(text: str, check: bool = False) -> tuple[str, list[str]]:
    """README text with every sample re-run; also the commands whose output changed shape."""
    changed: list[str] = []

    def replace(match: re.Match) -> str:
        command, old = match.group(1), match.group(2)
        new = run_sample(command)
        if shape(old) != shape(new):
            changed.append(command)
        return f"```sh\n{command}\n{new}```"

    return BLOCK.sub(replace, text), changed


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description="regenerate README sample outputs from the real commands")
    parser.add_argument("readme", type=Path)
    parser.add_argument("--check", action="store_true", help="report drift instead of rewriting")
    args = parser.parse_args(argv)
    text = args.readme.read_text()
    new, changed = regenerate(text)
    if args.check:
        for command in changed:
            print(f"drifted: {command}", file=sys.stderr)
        return 1 if changed else 0
    fd, tmp = tempfile.mkstemp(dir=args.readme.parent, prefix=".readme-")
    with os.fdopen(fd, "w") as handle:
        handle.write(new)
    os.replace(tmp, args.readme)
    print(f"{len(BLOCK.findall(text))} samples regenerated; {len(changed)} changed shape")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
