"""Bad invocations of every ``equilibria`` subcommand: bad option values, unknown and
malformed game names and parameters, unwritable output targets, missing arguments and
unknown flags. Every one must be refused: exit 2, one line on stderr, nothing on stdout,
no file created.

Arguments may hold placeholders filled in by :func:`materialise` inside a scratch folder:
``@TMP@`` the folder itself, ``@DIR@`` a subfolder, ``@FIFO@`` a named pipe, ``@MISSING@``
a folder that does not exist, ``@BADJSON@``, ``@EMPTYJSON@``, ``@LISTJSON@`` model files.
"""

from __future__ import annotations

import os
from pathlib import Path

TIME_VALUES = ["-1", "0", "-0", "nan", "NaN", "inf", "-inf", "abc", "", "1e400", "0x10", "1,5", "--"]
NONNEGATIVE_VALUES = ["-1", "-1e-9", "nan", "inf", "-inf", "abc", "", "1e999"]
COUNT_VALUES = ["0", "-5", "2.5", "abc", "", "1e3", "nan", "0x10"]

BAD_GAMES = [
    "nope",
    "",
    " ",
    ":",
    "leduc:ranks",
    "leduc:ranks=",
    "leduc:ranks=abc",
    "leduc:ranks=2.5",
    "leduc:ranks=1e3",
    "leduc:ranks=-1",
    "leduc:ranks=0",
    "leduc:ranks=1",
    "leduc:suits=0",
    "leduc:suits=-2",
    "leduc:bogus=1",
    "leduc:ranks=99999999999999999999",
    "leduc:ranks=1000,suits=1000",
    "leduc;ranks=2",
    "kuhn:cards=3",
    "kuhn_poker:x=1",
    "small_poker:ranks=2",
    "liars_dice:sides=abc",
    "liars_dice:sides=0",
    "liars_dice:sides=-1",
    "liars_dice:dice=0",
    "liars_dice:sides=100",
    "generalized_kuhn:cards=2.5",
    "generalized_kuhn:cards=0",
    "generalized_kuhn:cards=1",
    "generalized_kuhn:cards=-3",
    "generalized_kuhn:cards=100000000",
    "rhode_island:ranks=abc",
    "rhode_island:ranks=0",
    "rhode_island:ranks=100000",
    "one_street:pot=abc",
    "one_street:pot=nan",
    "one_street:pot=inf",
    "one_street:pot=-1",
    "one_street:pot=0",
    "one_street:cards=-1",
    "one_street:deal=bogus",
    "one_street",
    "kuhn_continuous",
    "river_endgame:cdf1=abc",
    "river_endgame:cdf1=0:0/1:0.5",
    "river_endgame:cdf1=",
    "missing.efg",
    "/nonexistent/folder/game.efg",
    "@DIR@",
    "@DIR@/",
    "@FIFO@",
    "@MISSING@/game.efg",
    "/dev/null",
    "/proc/self",
    "openspiel:",
    "openspiel:no_such_game",
    "openspiel:kuhn_poker(players=3)",
    "openspiel:kuhn_poker(players=abc)",
]

#: Targets no output can be written to (the FIFO must stay a FIFO).
BAD_TARGETS = ["@MISSING@/out.{ext}", "@DIR@", "/proc/x.{ext}", "@FIFO@", "", ".", "/", "/dev/full", "@DIR@/"]

#: Games without the view a command needs.
NO_ORDERED = ["liars_dice", "small_poker", "one_street", "kuhn_continuous", "openspiel:kuhn_poker", "@BADEFG@"]
NO_SIGNAL = ["leduc", "kuhn_poker", "liars_dice", "small_poker", "rhode_island", "@BADEFG@"]


def invocations() -> list[tuple[str, ...]]:
    """Every bad invocation, in a fixed order, without duplicates."""
    out: list[tuple[str, ...]] = []

    def add(*argv: str) -> None:
        out.append(tuple(argv))

    # no command, unknown commands, bare flags
    add()
    add("bogus")
    add("--bogus")
    add("-x")
    add("solve")
    add("info")
    add("export")
    add("export", "kuhn")
    add("export", "kuhn", "-o")
    add("threshold")
    add("shrink")
    for command in ("solve", "info", "games", "export", "threshold", "shrink", "backends"):
        base = [command] + ([] if command in ("games", "backends") else ["kuhn"])
        if command == "export":
            base += ["-o", "@TMP@/k.mps"]
        if command == "threshold":
            base[1] = "one_street"
        add(*base, "--bogus")
        add(*base, "-z")
        if command == "export":
            add(*base, "--player=1=2")
        else:
            add(*base, "--json=1")
        add(*base, "--quiet=yes")
        if command in ("games", "backends"):
            add(*base, "extra")
        else:
            add(*base, "extra", "positional")
    add("backends", "--names=1")
    add("info", "--list", "--bogus")
    add("solve", "kuhn", "--time-limit")
    add("solve", "kuhn", "--backend")
    add("solve", "kuhn", "--strategy-out")
    add("threshold", "one_street", "--cells")

    # option values
    for v in TIME_VALUES:
        add("solve", "kuhn", f"--time-limit={v}")
        add("solve", "kuhn", f"--target-exploitability={v}")
        add("threshold", "one_street", f"--time-limit={v}")
    for v in NONNEGATIVE_VALUES:
        add("solve", "kuhn", "--shrink", f"--threshold={v}")
        add("shrink", "kuhn", f"--threshold={v}")
        add("threshold", "one_street", f"--min-width={v}")
    add("solve", "kuhn", "--threshold", "0.5")  # --threshold needs --shrink
    add("threshold", "one_street", "--min-width", "2")  # no region can be that wide
    for v in COUNT_VALUES:
        add("threshold", "one_street", f"--cells={v}")
        add("threshold", "kuhn_continuous", f"--cells={v}")
    for b in ["none", "xyz", "", "pyomo:", "pyomo:nonexistent", "pyomo:../../bin/sh", "highs,scip"]:
        add("solve", "kuhn", f"--backend={b}")
        add("threshold", "one_street", f"--backend={b}")
    for m in ["bogus", "", "simplex,ipx", "pdlp2", "ipx "]:
        add("solve", "kuhn", f"--method={m}")
    for v in ["x", "", "NATIVE", "big-m"]:
        add("threshold", "one_street", f"--indicators={v}")
    add("threshold", "one_street", "--indicators=native", "--backend=highs")
    for v in ["x", "", "Lowest", "lowest,highest"]:
        add("threshold", "one_street", f"--select={v}")
    for m in ["bogus", "@MISSING@/m.json", "@DIR@", "@FIFO@", "@BADJSON@", "@EMPTYJSON@", "@LISTJSON@", ""]:
        add("threshold", "one_street", f"--model={m}")
    for v in ["3", "0", "-1", "x", "1.0", ""]:
        add("export", "kuhn", f"--player={v}", "-o", "@TMP@/k.mps")
    for v in ["pdf", "", "MPS", "lp,mps"]:
        add("export", "kuhn", f"--format={v}", "-o", "@TMP@/k.mps")

    # unwritable outputs: nothing may be created, the FIFO must stay a FIFO
    for t in BAD_TARGETS:
        add("solve", "kuhn", "--strategy-out", t.format(ext="csv"))
        add("export", "kuhn", "-o", t.format(ext="mps"))
        add("export", "kuhn", "--format", "lp", "-o", t.format(ext="lp"))
        add("shrink", "kuhn", "--write", t.format(ext="mps"))
        add("threshold", "one_street", "--write", t.format(ext="lp"))

    # games: unknown, malformed parameters, too large, without the view a command needs
    #: valid for some commands: signal games for threshold, a three-player game for info,
    #: Rhode Island for shrink (a long but legitimate GameShrink), games info describes
    #: without their tree (too large, or continuous signals)
    valid_for = {"threshold": {"one_street", "kuhn_continuous"}, "shrink": {"rhode_island"}}
    described = {"openspiel:kuhn_poker(players=3)", "rhode_island", "one_street", "kuhn_continuous"}
    answered = {"openspiel:kuhn_poker(players=3)"}  # solve without flags: MIP Nash
    for g in BAD_GAMES:
        if g not in answered:
            add("solve", g, "--quiet")
        if g not in described:
            add("info", g, "--quiet")
    for g in BAD_GAMES[::3]:
        add("export", g, "-o", "@TMP@/g.mps")
        if g not in answered:
            add("solve", g, "--json", "--quiet", "--strategy-out", "@TMP@/g.csv")
    for g in BAD_GAMES[1::4]:
        for command in ("shrink", "threshold"):
            if g not in valid_for[command]:
                add(command, g)
    for g in NO_ORDERED:
        add("shrink", g)
        add("solve", g, "--shrink")
    for g in NO_SIGNAL:
        add("threshold", g)
    add("solve", "@BADEFG@", "--json", "--quiet")
    add("info", "@BADEFG@", "--json")
    add("export", "@BADEFG@", "-o", "@TMP@/b.lp")
    add("solve", "openspiel:kuhn_poker(players=3)", "--json", "--no-shrink")
    add("solve", "@THREEPLAYERS@", "--json", "--no-shrink")  # the LP route; without flags, MIP Nash answers
    add("solve", "@NONZEROSUM@", "--json", "--no-shrink")
    add("export", "@THREEPLAYERS@", "-o", "@TMP@/t.mps")
    # case classes found by running every workflow as a user would (see
    # tests/test_user_workflows.py for the answers that must come out right)
    add("play", "kuhn", "--seed", "-1", "--hands", "1")
    add("threshold", "one_street", "--cells", "99999999999999999999")
    add("sweep", "--game", "kuhn", "-o", "@TMP@/s", "--workers", "99999999999999999999")
    add("show", "kuhn", "--infoset", "a{99999999999999999999}")
    for v in ["+3", "\u0663", "1_0", " 3", "99999999999999999999", "1"]:
        add("threshold", "kuhn:players=3", f"--breakpoints={v}")
        add("nash", "kuhn:players=3", f"--breakpoints={v}")
    add("solve", "kuhn", "--backend", "hig\nhs")
    add("solve", "kuhn", "--strategy-out", "a\u2028b/x.csv")
    for m in ["@BINJSON@", "@ORDERNUMBER@", "@ORDERNULL@", "@BIGINTJSON@", "/dev/zero"]:
        add("threshold", "one_street", f"--model={m}")
    for g in ["@HUGEPAYOFFNFG@", "@OVERFLOWNFG@", "@COUNTSNFG@", "@BIGCOUNTSNFG@"]:
        add("nash", g)
    add("solve", "@HUGEPAYOFFEFG@", "--backend", "scip")
    for r in ["@RULESEXIT@", "@RULESCLASS@", "@RULESBUILTIN@", "@RULESGENEXIT@", "@RULESKBD@", "@RULESHUGE@"]:
        add("solve", r)
    add("sweep", "--grid", "/dev/urandom", "-o", "@TMP@/g")
    add("sweep", "--game", "kuhn", "--option", "time_limit=-1", "-o", "@TMP@/t")
    add("show", "kuhn", "--plot", "@TMP@/k.mps")
    add("export", "leduc", "--format", "lp", "-o", "@TMP@/x.mps")
    # hangs: endless rules (stopped after 30 s without a move), sizes beyond the machine
    add("info", "@RULESLOOP@")
    add("info", "@RULESLOOPTOP@")
    add("solve", "kuhn_rules:cards=100000")
    add("info", "liars_dice_rules:sides=15")
    add("sweep", "--game", "leduc:ranks=3..1000000", "-o", "@TMP@/r")
    # typed rules parameters, endless reveals, overflowing payoffs, write targets checked
    # before the work, standard output and devices as targets
    for v in ["maybe", "", "2", "Flase", "nan"]:
        add("solve", f"@RULESBOOL@:forced={v}")
    add("info", "@RULESREVEAL@")
    add("solve", "sheriff:item_value=1e308")
    add("solve", "sheriff:sheriff_penalty=1e308,item_penalty=1e308")
    for command in (
        ("nash", "kuhn:players=3", "--products", "log", "--backend", "highs", "--epsilon", "0.01"),
        ("shrink", "leduc"),
        ("threshold", "kuhn_continuous"),
    ):
        for target in ("@MISSING@/x.lp", "@DIR@", "@FIFO@"):
            add(*command, "--write", target)
    add("export", "kuhn", "-o", "@SOCKET@")
    add("solve", "kuhn", "--strategy-out", "@SOCKET@")
    # parameters a game cannot honour together or given twice, a certificate a game has
    # no use for, compressed targets that cannot be written
    for cdf in ("0:0/1:1", "0:0/0.5:0.35/1:1"):
        add("solve", f"river_endgame:pot=3,cards=50,cdf1={cdf}")
        add("info", f"river_endgame:cards=5,cdf2={cdf}")
    add("info", "leduc:ranks=3,ranks=4")
    add("solve", "kuhn:players=2,players=3")
    add("threshold", "kuhn", "--certificate", "cells")
    add("threshold", "generalized_kuhn:cards=4", "--certificate", "cells")
    for t in ("@MISSING@/x.mps.gz", "@DIR@/", "@FIFO@"):
        add("export", "kuhn", "-o", t if t != "@DIR@/" else "@DIR@")
        add("shrink", "kuhn", "--write", t.replace("x.mps.gz", "x.lp.gz"))
    add("export", "kuhn", "-o", "@TMP@/k.pdf.gz")
    add("nash", "sheriff:rounds=1", "--write", "@TMP@/s.txt.gz")
    seen = set()
    unique = []
    for argv in out:
        if argv not in seen:
            seen.add(argv)
            unique.append(argv)
    return unique


#: Invocations that must be refused within a second of the command starting work (a size
#: estimate, not an attempt to build the game).
MUST_BE_QUICK = [
    ("solve", "generalized_kuhn:cards=100000000", "--quiet"),
    ("info", "generalized_kuhn:cards=100000000", "--quiet"),
    ("solve", "rhode_island:ranks=100000", "--quiet"),
    ("solve", "leduc:ranks=99999999999999999999", "--quiet"),
    ("solve", "liars_dice:sides=100", "--quiet"),
    ("solve", "kuhn_rules:cards=100000", "--quiet"),
    ("info", "liars_dice_rules:sides=15", "--quiet"),
    ("sweep", "--game", "leduc:ranks=3..1000000", "-o", "r", "--quiet"),
    ("sweep", "--game", "kuhn", "--option", "time_limit=1..1000000", "-o", "r", "--quiet"),
    ("sweep", "--game", "leduc:ranks=3..400", "--option", "time_limit=1..400", "-o", "r", "--quiet"),
]

THREE_PLAYERS = """EFG 2 R "three" { "A" "B" "C" }
""
p "" 1 1 "a" { "l" "r" } 0
p "" 2 1 "b" { "l" "r" } 0
t "" 1 "o1" { 1, -1, 0 }
p "" 3 1 "c" { "l" "r" } 0
t "" 2 "o2" { 0, 1, -1 }
t "" 3 "o3" { -1, 0, 1 }
t "" 4 "o4" { 1, 1, -2 }
"""

NONZEROSUM = """EFG 2 R "prisoners" { "A" "B" }
""
p "" 1 1 "a" { "c" "d" } 0
p "" 2 1 "b" { "c" "d" } 0
t "" 1 "cc" { 3, 3 }
t "" 2 "cd" { 0, 5 }
p "" 2 1 "b" { "c" "d" } 0
t "" 3 "dc" { 5, 0 }
t "" 4 "dd" { 1, 1 }
"""


def prepare(scratch: Path) -> dict[str, str]:
    """Create the placeholders' targets in ``scratch``; returns placeholder -> path."""
    (scratch / "dir").mkdir(parents=True, exist_ok=True)
    fifo = scratch / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    files = {
        "@BADJSON@": ("bad.json", "{not json"),
        "@EMPTYJSON@": ("empty.json", "{}"),
        "@LISTJSON@": ("list.json", "[1, 2, 3]"),
        "@BADEFG@": ("bad.efg", 'EFG 2 R "t" { "A" "B" } ""\np "" 1 1 "i" { "a" } 0\n'),
        "@THREEPLAYERS@": ("three.efg", THREE_PLAYERS),
        "@NONZEROSUM@": ("nonzerosum.efg", NONZEROSUM),
        "@ORDERNUMBER@": (
            "order_number.json",
            '{"players": [{"regions": [{"": "bet"}]}, {"regions": [{}]}], "order": 5}',
        ),
        "@ORDERNULL@": (
            "order_null.json",
            '{"players": [{"regions": [{"": "bet"}]}, {"regions": [{}]}], "order": null}',
        ),
        "@BIGINTJSON@": ("big_int.json", '{"players": [], "name": ' + "9" * 5001 + "}"),
        "@HUGEPAYOFFNFG@": ("huge.nfg", 'NFG 1 R "x" { "A" "B" } { 2 2 }\n1e999999999 0 0 0 0 0 0 0\n'),
        "@OVERFLOWNFG@": ("overflow.nfg", 'NFG 1 R "x" { "A" "B" } { 2 2 }\n1e400 0 0 0 0 0 0 0\n'),
        "@COUNTSNFG@": ("counts.nfg", 'NFG 1 R "x" { "A" "B" } { 4294967296 2 }\n1 0 0 0\n'),
        "@BIGCOUNTSNFG@": ("big_counts.nfg", 'NFG 1 R "x" { "A" "B" } { 100000000000000000000 2 }\n1 0\n'),
        "@HUGEPAYOFFEFG@": (
            "huge.efg",
            'EFG 2 R "x" { "A" "B" }\n""\np "" 1 1 "i" { "a" "b" } 0\nt "" 1 "o" { 1e299, -1e299 }\n'
            't "" 2 "p" { 0, 0 }\n',
        ),
        "@RULESEXIT@": ("rules_exit.py", "import sys\nsys.exit(7)\n"),
        "@RULESCLASS@": ("rules_class.py", "class rules:\n    pass\n"),
        "@RULESBUILTIN@": ("rules_builtin.py", "rules = print\n"),
        "@RULESGENEXIT@": ("rules_genexit.py", "def rules(g):\n    raise GeneratorExit\n"),
        "@RULESKBD@": ("rules_kbd.py", "raise KeyboardInterrupt\n"),
        "@RULESLOOP@": ("rules_loop.py", "def rules(g):\n    while True:\n        pass\n"),
        "@RULESLOOPTOP@": ("rules_looptop.py", "while True:\n    pass\n"),
        "@RULESBOOL@": (
            "rules_bool.py",
            "PLAYERS = ('A', 'B')\n\ndef rules(g, forced=False):\n"
            "    a = g.choose('A', ['h', 't'], secret=True)\n"
            "    b = g.choose('B', ['h'] if forced else ['h', 't'])\n"
            "    g.outcome([1, -1] if a == b else [-1, 1])\n",
        ),
        "@RULESREVEAL@": (
            "rules_reveal.py",
            "PLAYERS = ('A', 'B')\n\ndef rules(g):\n    i = 0\n    while True:\n        g.reveal('A', i)\n"
            "        i += 1\n",
        ),
        "@RULESHUGE@": (
            "rules_huge.py",
            "def rules(g, n=10**6):\n    a = g.chance(range(n))\n    b = g.chance(range(n))\n"
            "    g.outcome([a - b, b - a])\n",
        ),
    }
    socket_path = scratch / "socket"
    if not socket_path.exists():
        import socket

        with socket.socket(socket.AF_UNIX) as listener:  # a socket file, left after close
            listener.bind(str(socket_path))
    mapping = {"@TMP@": str(scratch), "@DIR@": str(scratch / "dir"), "@FIFO@": str(fifo)}
    mapping["@SOCKET@"] = str(socket_path)
    mapping["@MISSING@"] = str(scratch / "missing")
    for key, (name, text) in files.items():
        (scratch / name).write_text(text)
        mapping[key] = str(scratch / name)
    (scratch / "binary.json").write_bytes(bytes(range(256)))
    mapping["@BINJSON@"] = str(scratch / "binary.json")
    return mapping


def materialise(argv: tuple[str, ...], mapping: dict[str, str]) -> list[str]:
    """``argv`` with placeholders replaced by paths in the scratch folder."""
    out = []
    for arg in argv:
        for key, value in mapping.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out
