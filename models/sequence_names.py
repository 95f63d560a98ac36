"""The names a sequence-form program gives its columns and rows in MPS and LP files.

Player ``p``'s (1-based) sequence-form LP (``equilibria export GAME --player p``, with
opponent ``o``) names its entries after the game's sequences and information sets:

* ``r<p>()``: the empty sequence of ``p`` (its weight is 1);
* ``r<p>(<infoset>_<action>)``: ``p``'s realization weight of that action's sequence;
* ``v<o>()``: the root's value for ``o`` (the objective); ``v<o>(<infoset>)``: the value
  of one of ``o``'s information sets;
* rows ``realization<p>()`` (``r<p>() = 1``) and ``realization<p>(<infoset>)`` (the
  information set's actions add up to its parent sequence);
* rows ``best_response<o>()`` and ``best_response<o>(<infoset>_<action>)``: one per
  sequence of ``o``.

``<infoset>`` and ``<action>`` are the game's labels (``equilibria show`` and
``--strategy-out`` print the same ones) with every character other than an ASCII letter
or a digit written as ``.``, joined by ``_``: Kuhn poker's player 1 betting with the jack
is ``r1(J._bet)`` (information set ``J:``), Leduc's player 2 calling a raise with the jack
of spades ``r2(Js.r_call)``. A name holds letters, digits and ``_ . ( )`` only, at most
:data:`MAX_NAME` of them: no spaces (free MPS), none of the operators of the LP format
(CPLEX's definition, which HiGHS, SCIP and Gurobi read) and nothing a CSV must quote.
Where a player's labels would not give every sequence a name of its own (labels that are
missing, empty, repeated, or alike once written so, or a name too long), all of that
player's names are numbered instead: ``I<k>`` for its ``k``-th information set and
``<j>`` for the ``j``-th action there, both from 1 (``r1(I3_2)``).

The names depend on the game alone, so they are the same on every export, and
:func:`plan_names` gives back, for each player, the column names of its realization plan
in sequence order: what reading a solver's solution file maps values through.
"""

from __future__ import annotations

import re

from .sequence import SequenceForm

#: The longest name the LP format admits (CPLEX's limit, the strictest of the readers).
MAX_NAME = 255

_OTHER_CHARACTERS = re.compile(r"[^A-Za-z0-9]")


def name_part(label: str) -> str:
    """A label as it appears inside a name: characters other than ASCII letters and
    digits written as ``.`` (``_`` joins an information set to its action)."""
    return _OTHER_CHARACTERS.sub(".", str(label))


def _labels(sf: SequenceForm, p: int) -> tuple[list[str], list[list[str]]]:
    """Player ``p``'s information-set labels and each one's action labels, as the game
    gives them (numbered where it gives none)."""
    ps = sf.players[p]
    g = sf.game
    labels = None if g is None else g.infoset_labels
    infosets, actions = [], []
    for i in range(ps.num_infosets):
        k = int(ps.infoset_global[i])
        infosets.append(f"I{i + 1}" if labels is None else str(labels[k]))
        count = int(ps.infoset_num_actions[i])
        actions.append([str(a + 1) if g is None else g.action_label(k, a) for a in range(count)])
    return infosets, actions


def _parts(sf: SequenceForm, p: int) -> tuple[list[str], list[list[str]]]:
    """The name parts of player ``p``'s information sets and their actions: the labels
    written as names where they tell every sequence apart, numbers otherwise."""
    infosets, actions = _labels(sf, p)
    infoset_parts = [name_part(label) for label in infosets]
    action_parts = [[name_part(label) for label in these] for these in actions]
    longest = max((len(i) + len(a) for i, these in zip(infoset_parts, action_parts) for a in these), default=0)
    distinct = len(set(infoset_parts)) == len(infoset_parts) and all(
        len(set(these)) == len(these) for these in action_parts
    )
    # 'best_response' and two digits of a player number, the parentheses and the '_'
    if distinct and all(infoset_parts) and longest + len("best_response99(_)") <= MAX_NAME:
        return infoset_parts, action_parts
    return [f"I{i + 1}" for i in range(len(infosets))], [[str(a + 1) for a in range(len(t))] for t in actions]


def sequence_names(sf: SequenceForm, p: int, prefix: str) -> list[str]:
    """``prefix<p>()`` for player ``p``'s (0-based) empty sequence, then
    ``prefix<p>(<infoset>_<action>)`` for each of its sequences in order."""
    head = f"{prefix}{p + 1}"
    infosets, actions = _parts(sf, p)
    names = [f"{head}()"]
    for infoset, these in zip(infosets, actions):
        names.extend(f"{head}({infoset}_{action})" for action in these)
    return names


def infoset_names(sf: SequenceForm, p: int, prefix: str) -> list[str]:
    """``prefix<p>()`` for the root, then ``prefix<p>(<infoset>)`` for each of player
    ``p``'s (0-based) information sets in order."""
    head = f"{prefix}{p + 1}"
    infosets, _ = _parts(sf, p)
    return [f"{head}()", *(f"{head}({infoset})" for infoset in infosets)]


def plan_names(sf: SequenceForm, p: int) -> list[str]:
    """The column names of player ``p``'s (0-based) realization plan, in sequence order."""
    return sequence_names(sf, p, "r")


def sequence_form_lp_names(sf: SequenceForm, p: int) -> tuple[list[str], list[str]]:
    """Column and row names of player ``p``'s (0-based) sequence-form LP, in the LP's order:
    columns ``r`` then ``v``, rows ``realization`` then ``best_response``."""
    o = 1 - p
    columns = plan_names(sf, p) + infoset_names(sf, o, "v")
    rows = infoset_names(sf, p, "realization") + sequence_names(sf, o, "best_response")
    return columns, rows


#: The per-sequence column blocks of a MIP Nash program besides the realization plan:
#: regret, not-played binary, payoff-term error, and the two linearisations' variables.
MIP_NASH_SEQUENCE_BLOCKS = "sbafg"

#: MIP Nash's columns that belong to no player: the objective's ``z`` and the products
#: ``w_<i>`` and ``u_<i>``.
_MIP_NASH_SHARED = re.compile(r"z|[wu]_[0-9]+")


def mip_nash_column_names(sf: SequenceForm, blocks: list[tuple[str, int]]) -> list[str]:
    """Column names of a MIP Nash program whose column blocks are ``blocks`` (name, size):
    player ``p``'s realization plan ``x<p-1>`` is named as in every export
    (``r<p>(...)``, :func:`plan_names`), its values ``v<p>(...)`` after its information
    sets, its per-sequence blocks ``s``, ``b``, ``a``, ``f``, ``g`` after its sequences
    (``b1(J._bet)``), and the shared ``z``, ``w_<i>``, ``u_<i>`` by number."""
    names: list[str] = []
    for block, size in blocks:
        letter, player = block[0], block[1:]
        if player.isdigit():
            p = int(player)
            if letter == "x":
                names += plan_names(sf, p)
            elif letter == "v":
                names += infoset_names(sf, p, "v")
            else:
                names += sequence_names(sf, p, letter)
        elif block == "z":
            names.append("z")
        else:
            names += [f"{block}_{i}" for i in range(size)]
    return names


def mip_nash_auxiliary_names(sf: SequenceForm) -> set[str]:
    """The names that MIP Nash programs of ``sf``'s game give columns other than the
    realization plans and values, bar the shared ``w_<i>`` and ``u_<i>``
    (:func:`is_shared_mip_nash_column`): a solution file may hold them, a certificate
    passes over them."""
    names = {"z"}
    for p in range(sf.num_players):
        for letter in MIP_NASH_SEQUENCE_BLOCKS:
            names.update(sequence_names(sf, p, letter))
    return names


def is_shared_mip_nash_column(name: str) -> bool:
    """True for a MIP Nash product column ``w_<i>`` or ``u_<i>`` (or the objective's ``z``)."""
    return _MIP_NASH_SHARED.fullmatch(name) is not None


__all__ = [
    "MAX_NAME",
    "infoset_names",
    "is_shared_mip_nash_column",
    "mip_nash_auxiliary_names",
    "mip_nash_column_names",
    "name_part",
    "plan_names",
    "sequence_form_lp_names",
    "sequence_names",
]
