"""Mutated ``.efg`` files: every bundled game and a few random games, damaged byte- and
token-wise by a seeded numpy Generator, so the corpus is the same on every run.

``corpus(n, seed)`` returns ``n`` cases ``(case_id, data)``; the id names the seed game and
the mutations applied, so a failing case can be rebuilt and read.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

INSTANCES = Path(__file__).resolve().parents[2] / "instances"

#: Replacements for a number: out of range, not finite, malformed, enormous, exotic digits.
NUMBERS = [
    "0",
    "-0",
    "-1",
    "-7",
    "2",
    "3",
    "1/3",
    "0.5",
    "1e309",
    "-1e309",
    "1e300",
    "-1e300",
    "1.7976931348623157e308",
    "1e-400",
    "5e-324",
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1/0",
    "0/0",
    "-3/0",
    "1/-2",
    "-1/2",
    "2/1",
    "3/2",
    "1//2",
    "1/2/3",
    "1 /3",
    "0x10",
    "1_000",
    "+1",
    "--1",
    "1e",
    "1e+",
    ".",
    "-",
    "/",
    "1.",
    ".5",
    "2147483647",
    "2147483648",
    "4294967297",
    "-2147483649",
    "9223372036854775808",
    "99999999999999999999",
    "999999999999999999999",
    "1" + "0" * 60,
    "1" + "0" * 399,
    "1" + "0" * 400,
    "9" * 5000,
    "1/" + "9" * 5000,
    "0." + "0" * 3000 + "1",
    "1e999999999",
    "1e-999999999",
    "\u0661",  # ARABIC-INDIC DIGIT ONE: int() and float() accept it
    "\uff11",  # FULLWIDTH DIGIT ONE
    "\u00bd",  # VULGAR FRACTION ONE HALF
    "1\u00a0",  # a no-break space after the digit
]

#: Stray bytes to insert: NUL, control characters, line separators Python knows but
#: Gambit does not, a lone UTF-8 continuation byte, a BOM in the middle, quotes and braces.
STRAY = [
    b"\x00",
    b"\x01",
    b"\x1a",
    b"\x7f",
    b"\x80",
    b"\xff",
    b"\xfe\xff",
    b"\xef\xbb\xbf",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x85",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\t",
    b'"',
    b"\\",
    b'\\"',
    b"{",
    b"}",
    b",",
    b",,",
    b" t ",
    b" p ",
    b" c ",
    b"\xe9",
    b"\xc3\xa9",
    b"\xf0\x9f\x82\xa1",
]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}]|,|[^\s{}",]+|\s+')


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _words(tokens: list[str], pattern: str = r".") -> list[int]:
    rx = re.compile(pattern)
    return [i for i, t in enumerate(tokens) if t.strip() and t[0] not in '"{},' and rx.fullmatch(t)]


# ---- mutations on text (each takes the rng and the text, returns (name, new text)) ----


def delete_token(rng: np.random.Generator, text: str) -> tuple[str, str]:
    toks = _tokens(text)
    idx = [i for i, t in enumerate(toks) if t.strip()]
    if not idx:
        return "delete_token", text
    del toks[int(rng.choice(idx))]
    return "delete_token", "".join(toks)


def duplicate_token(rng: np.random.Generator, text: str) -> tuple[str, str]:
    toks = _tokens(text)
    idx = [i for i, t in enumerate(toks) if t.strip()]
    if not idx:
        return "duplicate_token", text
    i = int(rng.choice(idx))
    toks.insert(i, toks[i] + " ")
    return "duplicate_token", "".join(toks)


def swap_tokens(rng: np.random.Generator, text: str) -> tuple[str, str]:
    toks = _tokens(text)
    idx = [i for i, t in enumerate(toks) if t.strip()]
    if len(idx) < 2:
        return "swap_tokens", text
    i, j = (int(x) for x in rng.choice(idx, size=2, replace=False))
    toks[i], toks[j] = toks[j], toks[i]
    return "swap_tokens", "".join(toks)


def replace_number(rng: np.random.Generator, text: str) -> tuple[str, str]:
    toks = _tokens(text)
    idx = _words(toks, r"[-+0-9./eE]+")
    if not idx:
        return "replace_number", text
    i = int(rng.choice(idx))
    k = int(rng.integers(len(NUMBERS)))
    toks[i] = NUMBERS[k]
    return f"replace_number[{k}]", "".join(toks)


def small_integer(rng: np.random.Generator, text: str) -> tuple[str, str]:
    """Change a player, information set or outcome number to another small one: files that
    still parse but describe another (perhaps invalid) game."""
    toks = _tokens(text)
    idx = _words(toks, r"\d+")
    if not idx:
        return "small_integer", text
    i = int(rng.choice(idx))
    toks[i] = str(int(rng.integers(0, 7)))
    return "small_integer", "".join(toks)


def payoff_change(rng: np.random.Generator, text: str) -> tuple[str, str]:
    """Change one payoff to another plain number (the game may stop being zero-sum)."""
    toks = _tokens(text)
    inside, idx = False, []
    for i, t in enumerate(toks):
        if t == "{":
            inside = True
        elif t == "}":
            inside = False
        elif inside and re.fullmatch(r"-?\d+(\.\d*)?", t):
            idx.append(i)
    if not idx:
        return "payoff_change", text
    i = int(rng.choice(idx))
    toks[i] = str(int(rng.integers(-9, 10)))
    return "payoff_change", "".join(toks)


def probability_change(rng: np.random.Generator, text: str) -> tuple[str, str]:
    toks = _tokens(text)
    idx = _words(toks, r"\d+/\d+|0?\.\d+|1")
    if not idx:
        return "probability_change", text
    i = int(rng.choice(idx))
    toks[i] = str(rng.choice(["0", "1", "1/2", "2/3", "0.3333333333333333", "1/3", "-1/3", "4/3", "0.25"]))
    return "probability_change", "".join(toks)


def break_quote(rng: np.random.Generator, text: str) -> tuple[str, str]:
    pos = [m.start() for m in re.finditer('"', text)]
    if not pos or rng.random() < 0.3:
        i = int(rng.integers(0, len(text) + 1))
        return "insert_quote", text[:i] + '"' + text[i:]
    i = int(rng.choice(pos))
    return "delete_quote", text[:i] + text[i + 1 :]


def break_brace(rng: np.random.Generator, text: str) -> tuple[str, str]:
    pos = [m.start() for m in re.finditer("[{}]", text)]
    if not pos or rng.random() < 0.3:
        i = int(rng.integers(0, len(text) + 1))
        return "insert_brace", text[:i] + str(rng.choice(["{", "}"])) + text[i:]
    i = int(rng.choice(pos))
    return "delete_brace", text[:i] + text[i + 1 :]


def line_edit(rng: np.random.Generator, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    i = int(rng.integers(len(lines)))
    op = int(rng.integers(4))
    if op == 0:
        del lines[i]
        return "delete_line", "\n".join(lines)
    if op == 1:
        lines.insert(i, lines[i])
        return "duplicate_line", "\n".join(lines)
    if op == 2:
        j = int(rng.integers(len(lines)))
        lines[i], lines[j] = lines[j], lines[i]
        return "swap_lines", "\n".join(lines)
    lines.append(lines[i])
    return "append_line", "\n".join(lines)


def header_edit(rng: np.random.Generator, text: str) -> tuple[str, str]:
    """Damage the header: the magic word, the version, the player list."""
    choices = [
        ("EFG 2 R", "EFG 3 R"),
        ("EFG 2 R", "EFG 2 D"),
        ("EFG 2 R", "efg 2 r"),
        ("EFG 2 R", "NFG 1 R"),
        ("EFG 2 R", "EFG"),
        ('{ "', '{ "Third" "'),
        ('{ "', '{ "Third" "Fourth" "'),
        ('{ "', "{ "),
    ]
    k = int(rng.integers(len(choices)))
    a, b = choices[k]
    return f"header[{k}]", text.replace(a, b, 1)


def drop_player(rng: np.random.Generator, text: str) -> tuple[str, str]:
    m = re.search(r'\{\s*("[^"]*")\s*("[^"]*")\s*\}', text)
    if not m:
        return "drop_player", text
    keep = m.group(1) if rng.random() < 0.5 else m.group(2)
    return "drop_player", text[: m.start()] + "{ " + keep + " }" + text[m.end() :]


def insert_stray(rng: np.random.Generator, text: str) -> tuple[str, str]:
    # applied to text as Latin-1 so that raw bytes survive to the file
    k = int(rng.integers(len(STRAY)))
    i = int(rng.integers(0, len(text) + 1))
    return f"stray[{k}]", text[:i] + STRAY[k].decode("latin-1") + text[i:]


def truncate(rng: np.random.Generator, text: str) -> tuple[str, str]:
    i = int(rng.integers(0, max(len(text), 1)))
    return f"truncate[{i}]", text[:i]


def non_ascii_names(rng: np.random.Generator, text: str) -> tuple[str, str]:
    return "non_ascii", text.replace('"', '"\u00e9\u00df', 2).replace("Player", "Spi\u00ebler")


TEXT_MUTATIONS: list[Callable[[np.random.Generator, str], tuple[str, str]]] = [
    delete_token,
    duplicate_token,
    swap_tokens,
    replace_number,
    replace_number,
    small_integer,
    small_integer,
    payoff_change,
    probability_change,
    break_quote,
    break_brace,
    line_edit,
    line_edit,
    header_edit,
    drop_player,
    insert_stray,
    truncate,
]

# ---- encodings: the last step, text to bytes ----


def encode(rng: np.random.Generator, text: str) -> tuple[str, bytes]:
    """The text as bytes: mostly UTF-8, sometimes another encoding or line ending."""
    raw = text.encode("latin-1", errors="replace") if all(ord(c) < 256 for c in text) else text.encode("utf-8")
    r = rng.random()
    if r < 0.6:
        return "", raw
    options = [
        ("crlf", lambda: text.replace("\n", "\r\n").encode("utf-8", errors="surrogatepass")),
        ("cr", lambda: text.replace("\n", "\r").encode("utf-8", errors="surrogatepass")),
        ("utf8_bom", lambda: codecs.BOM_UTF8 + text.encode("utf-8")),
        ("latin1", lambda: non_ascii_names(rng, text)[1].encode("latin-1", errors="replace")),
        ("utf16", lambda: text.encode("utf-16")),  # with a BOM
        ("utf16le", lambda: text.encode("utf-16-le")),  # without one: NUL bytes
        ("utf16be_bom", lambda: codecs.BOM_UTF16_BE + text.encode("utf-16-be")),
        ("utf16_odd", lambda: text.encode("utf-16")[:-1]),  # a cut code unit
        ("utf32", lambda: text.encode("utf-32")),
        ("utf16_crlf", lambda: text.replace("\n", "\r\n").encode("utf-16")),
    ]
    name, make = options[int(rng.integers(len(options)))]
    return name, make()


# ---- the corpus ----


@cache
def seed_games() -> tuple[tuple[str, str], ...]:
    """(name, text) of every bundled .efg file and of eight random games."""
    from equilibria.models.efg_io import write_efg

    from ..random_games import random_game

    out = [(p.stem, p.read_text()) for p in sorted(INSTANCES.glob("*.efg"))]
    out += [(f"random{s}", write_efg(random_game(s, max_depth=4))) for s in range(8)]
    return tuple(out)


def _special(rng: np.random.Generator) -> list[tuple[str, bytes]]:
    """Files that are not mutations of a game."""
    garbage = rng.integers(0, 256, size=4096, dtype=np.uint8).tobytes()
    text_garbage = bytes(int(b) for b in rng.integers(32, 127, size=2048))
    deep = "EFG 2 R " + '"deep" { "A" "B" } ""\n' + "".join(f'p "" 1 {i + 1} "i{i}" {{ "a" }} 0\n' for i in range(3000))
    deep += 't "" 1 "o" { 1, -1 }\n'
    wide = 'EFG 2 R "wide" { "A" "B" } ""\np "" 1 1 "w" { ' + " ".join(f'"a{i}"' for i in range(20000)) + " } 0\n"
    wide += "".join(f't "" {i + 1} "o{i}" {{ {i % 7 - 3}, {3 - i % 7} }}\n' for i in range(20000))
    return [
        ("empty", b""),
        ("space", b"   \n\n\t "),
        ("bom_only", codecs.BOM_UTF8),
        ("utf16_bom_only", codecs.BOM_UTF16_LE),
        ("binary", garbage),
        ("binary_nul_free", garbage.replace(b"\x00", b"\x01")),
        ("printable_garbage", text_garbage),
        ("magic_only", b"EFG 2 R"),
        ("header_only", b'EFG 2 R "t" { "A" "B" } ""\n'),
        ("no_players", b'EFG 2 R "t" { } ""\nt "" 1 "o" { }\n'),
        ("one_terminal", b'EFG 2 R "t" { "A" "B" } ""\nt "" 1 "o" { 1, -1 }\n'),
        ("one_player", b'EFG 2 R "t" { "A" } ""\np "" 1 1 "i" { "a" "b" } 0\nt "" 1 "o" { 1 }\nt "" 2 "p" { 2 }\n'),
        ("three_players", (INSTANCES / "kuhn_poker.efg").read_bytes().replace(b'"Player 2"', b'"Player 2" "P3"')),
        ("deep_chain", deep.encode()),
        ("wide_root", wide.encode()),
        ("long_line", b'EFG 2 R "' + b"x" * 2_000_000 + b'" { "A" "B" } ""\n'),
        ("unterminated_string", b'EFG 2 R "t { "A" "B" } ""\n' + b"x" * 100_000),
        ("many_braces", b"EFG 2 R " + b"{" * 100_000),
        ("many_backslashes", b'EFG 2 R "' + b"\\" * 100_001 + b'"'),
    ]


def corpus(n: int, seed: int = 20240611) -> list[tuple[str, bytes]]:
    """``n`` cases ``(case_id, bytes)``: the special files first, then mutations of the seed
    games, one to three text mutations each and an encoding."""
    rng = np.random.default_rng(seed)
    cases = _special(rng)
    games = seed_games()
    k = 0
    while len(cases) < n:
        name, text = games[k % len(games)]
        steps = []
        for _ in range(int(rng.integers(1, 4))):
            mutation = TEXT_MUTATIONS[int(rng.integers(len(TEXT_MUTATIONS)))]
            label, text = mutation(rng, text)
            steps.append(label)
        enc, data = encode(rng, text)
        if enc:
            steps.append(enc)
        cases.append((f"{k:04d}-{name}-{'+'.join(steps)}", data))
        k += 1
    return cases[:n]
