"""Regenerate the sample outputs in README.md from the real commands.

Every fenced ``sh`` block whose first line is ``$ .venv/bin/equilibria ...`` is run
(through this interpreter's ``equilibria`` command) and the lines after the command are
replaced by what it prints. Plain blocks that show a command as typed (``$ equilibria
...``) are checked, not rewritten: without output the command must parse, with output
(abridged by ``...`` lines) it must print the lines shown, in order. ``--check`` changes
nothing and exits 1 when a sample's labels (each line's text with the numbers removed) no
longer match the command's output, so the README cannot drift from the program.

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
from typing import Any

PROMPT = "$ .venv/bin/equilibria "
BLOCK = re.compile(r"```sh\n(\$ \.venv/bin/equilibria [^\n]*)\n(.*?)```", re.S)
#: Plain blocks showing a command as a user types it (``$ equilibria ...``, continued with
#: a backslash), then what it prints, abridged with ``...`` lines, or nothing.
PLAIN = re.compile(r"```\n(\$ equilibria (?:[^\n]*\\\n)*[^\n]*)\n(.*?)```", re.S)


def run_sample(command_line: str, with_stderr: bool = False) -> Any:
    """The standard output of a README command line (``$ .venv/bin/equilibria ...`` or
    ``$ equilibria ...``), run in a scratch folder so that the files it writes go there;
    with ``with_stderr`` (standard output, standard error)."""
    args = shlex.split(command_line.replace("\\\n", " ").split("equilibria ", 1)[1])
    with tempfile.TemporaryDirectory() as scratch:
        res = subprocess.run(
            [sys.executable, "-m", "equilibria.scripts.cli", *args],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=scratch,
        )
    if res.returncode != 0:
        raise RuntimeError(f"'{command_line}' exited {res.returncode}: {res.stderr.strip()}")
    return (res.stdout, res.stderr) if with_stderr else res.stdout


def check_plain(text: str) -> list[str]:
    """The plain samples (``$ equilibria ...``) that no longer hold: a command shown
    without output must be accepted by the parser; one shown with output must print the
    lines shown, in order (numbers aside; ``...`` stands for lines left out)."""
    from .cli import build_parser

    drifted = []
    for match in PLAIN.finditer(text):
        command, shown = match.group(1), [line for line in match.group(2).splitlines() if line.strip()]
        if not shown:
            try:
                build_parser().parse_args(shlex.split(command.replace("\\\n", " ").split("equilibria ", 1)[1]))
            except SystemExit:
                drifted.append(command)
            continue
        out, err = run_sample(command, with_stderr=True)
        # each line shown must come later in its stream than the one before it (progress
        # lines, "equilibria: ...", are on standard error, the answer on standard output)
        kept = [line for line in shown if line.strip() != "..."]
        for stream, lines in (
            (err, [x for x in kept if x.startswith("equilibria:")]),
            (out, [x for x in kept if not x.startswith("equilibria:")]),
        ):
            actual = iter(shape(stream))
            if not all(line in actual for line in shape("\n".join(lines))):
                drifted.append(command)
                break
    return drifted


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
    plain = check_plain(text)  # abridged samples are checked, not rewritten
    for command in plain:
        print(f"drifted (edit it by hand): {command}", file=sys.stderr)
    if args.check:
        for command in changed:
            print(f"drifted: {command}", file=sys.stderr)
        return 1 if changed or plain else 0
    fd, tmp = tempfile.mkstemp(dir=args.readme.parent, prefix=".readme-")
    with os.fdopen(fd, "w") as handle:
        handle.write(new)
    os.replace(tmp, args.readme)
    print(f"{len(BLOCK.findall(text))} samples regenerated; {len(changed)} changed shape")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
