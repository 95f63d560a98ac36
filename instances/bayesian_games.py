"""Named games with private signals (Ganzfried and Sandholm, "Computing equilibria by
incorporating qualitative models", 2010) and their standard parametric models.

``equilibria.instances.load_bayesian("one_street:pot=2")``, ``load_bayesian("kuhn_continuous")`` (G-infinity),
``load_bayesian("generalized_kuhn:cards=10")`` (G_n as a finite-signal game: the same game
as the extensive-form ``generalized_kuhn:cards=10``), ``load_bayesian("river_endgame")``.
Every continuous game takes ``cards=n`` for its version with n equally likely signals,
dealt from one deck (``deal=independent`` for independent draws instead). The Kuhn games
take ``players=k`` for k players (OpenSpiel's ``kuhn_poker(players=k)`` betting: each
player in turn checks or bets, after a bet the others call or fold).
"""

from __future__ import annotations

from math import perm

import numpy as np

from ..models.bayesian import BayesianGame, SignalDistribution
from ..models.betting import BettingTree
from ..models.errors import GameError, UnknownInstanceError
from ..models.parametric import ModelError, ParametricModel
from .betting import kuhn_betting, one_street_betting, river_betting

#: The most players a registered game accepts (Kuhn betting has about players x
#: 2^players nodes; the deals grow factorially).
MAX_PLAYERS = 10


def check_players(game: str, players: int) -> int:
    """``players`` when it is a whole number from 2 to :data:`MAX_PLAYERS`; GameError
    naming the parameter otherwise."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise GameError(f"'{game}': parameter players must be a whole number from 2 to {MAX_PLAYERS}, not {players!r}")
    return players


def kuhn_tree_nodes(players: int) -> int:
    """Nodes of Kuhn poker's betting tree for ``players`` players (0 outside the accepted
    range): the chain of checks, and below each bet a binary tree of call-or-fold."""
    if not 2 <= players <= MAX_PLAYERS:
        return 0
    return players + 1 + players * (2**players - 1)


def kuhn_deals(cards: int, players: int, deal: str = "without_replacement") -> int:
    """Deals of ``cards`` signals to ``players`` players (0 outside the accepted range)."""
    if not 2 <= players <= MAX_PLAYERS or cards <= 0:
        return 0
    return perm(cards, players) if deal == "without_replacement" else cards**players


def _signals(cards: int, cdf: SignalDistribution | None = None) -> SignalDistribution:
    if cards and cards > 0:
        return SignalDistribution.discrete([1.0 / cards] * cards)
    if cdf is None:
        return SignalDistribution.uniform()
    return cdf


def _parse_cdf(text: str) -> SignalDistribution:
    """``"0:0/0.5:0.3/1:1"`` -> a piecewise-linear CDF through those (signal, F) points."""
    try:
        pairs = [tuple(float(v) for v in item.split(":")) for item in str(text).split("/")]
        xs, fs = zip(*pairs)
    except ValueError:
        raise GameError(f"CDF '{text}' should read like 0:0/0.5:0.3/1:1 (signal:F pairs)") from None
    return SignalDistribution(tuple(xs), tuple(fs))


def deck_joint(ranks: int, suits: int, players: int = 2) -> np.ndarray:
    """The joint law of the ranks ``players`` players are dealt from one deck of
    ``ranks`` x ``suits`` cards (one card each, without replacement): an array with one
    axis of ``ranks`` per player. Ranks are dependent unless ``suits`` is large: holding
    a rank makes it rarer for the others (with one suit, impossible)."""
    if ranks < 1 or suits < 1 or ranks * suits < players:
        raise GameError(f"a deck of {ranks} ranks x {suits} suits cannot deal {players} players a card each")
    grid = np.indices((ranks,) * players).reshape(players, -1).T
    prob = np.ones(grid.shape[0])
    for i in range(players):
        earlier = (grid[:, :i] == grid[:, i : i + 1]).sum(axis=1)  # same rank dealt before
        prob *= np.clip(suits - earlier, 0, None) / float(ranks * suits - i)
    return prob.reshape((ranks,) * players)


def _deck_game(
    name: str, tree: BettingTree, cards: int, suits: int, players: int, winner: str, deal: str, parameters: dict
) -> BayesianGame:
    """A game of ``cards`` ranks dealt from a deck of ``suits`` cards per rank."""
    if not cards:
        raise GameError(f"'{parameters['kind']}': parameter suits needs cards (the number of ranks)")
    if deal != "without_replacement":
        raise GameError(f"'{parameters['kind']}': parameter suits deals from one deck (deal=without_replacement)")
    names = [tuple(str(i + 1) for i in range(cards))] * players
    return BayesianGame.from_joint(
        name, tree, deck_joint(cards, suits, players), winner=winner, names=names, parameters=parameters
    )


def _check_deal(game: str, deal: str) -> str:
    """``deal`` if it is a way these games deal cards; continuous signals are independent
    whatever it says, but a word that names no deal is refused, not dropped."""
    if deal not in ("without_replacement", "independent"):
        raise GameError(f"'{game}': parameter deal must be without_replacement or independent, not '{deal}'")
    return deal


def _check_rake(game: str, rake: float) -> float:
    if not 0.0 <= rake < 1.0:
        raise GameError(f"'{game}': parameter rake must be a fraction of the pot from 0 to below 1, not {rake!r}")
    return rake


def _rake_text(rake: float) -> str:
    return f", rake={rake:g}" if rake else ""


def one_street(
    pot: float = 1.0, cards: int = 0, deal: str = "without_replacement", rake: float = 0.0, suits: int = 1
) -> BayesianGame:
    """Ganzfried and Sandholm (2010), section 3: pot ``pot``, player 1 checks or bets 1, player 2 calls or folds;
    the lower signal wins; uniform signals on [0, 1] (or ``cards`` equally likely ones).
    ``rake``: the fraction of the pot the house keeps (a general-sum game). ``suits``:
    the ``cards`` ranks are dealt from a deck of ``suits`` cards each (dependent signals;
    equal ranks split the pot)."""
    if pot <= 0:
        raise GameError("one_street needs a positive pot")
    _check_deal("one_street", deal)
    if suits != 1:
        return _deck_game(
            f"one_street(pot={pot:g}, cards={cards}, suits={suits}{_rake_text(rake)})",
            one_street_betting(pot, rake=_check_rake("one_street", rake)),
            cards,
            suits,
            2,
            "lower",
            deal,
            {"kind": "one_street", "pot": pot, "cards": cards, "suits": suits} | ({"rake": rake} if rake else {}),
        )
    s = _signals(cards)
    return BayesianGame(
        f"one_street(pot={pot:g}{f', cards={cards}' if cards else ''}"
        f"{f', deal={deal}' if cards and deal != 'without_replacement' else ''}{_rake_text(rake)})",
        one_street_betting(pot, rake=_check_rake("one_street", rake)),
        (s, s),
        winner="lower",
        deal=deal if cards else "independent",
        parameters={"kind": "one_street", "pot": pot, "cards": cards} | ({"rake": rake} if rake else {}),
    )


def kuhn_continuous(
    cards: int = 0, deal: str = "without_replacement", players: int = 2, rake: float = 0.0, suits: int = 1
) -> BayesianGame:
    """G-infinity of Ganzfried and Sandholm (2010), section 8.1: Kuhn poker's betting with uniform [0, 1] signals,
    the higher wins. With ``cards=n``: G_n (distinct cards 1..n). ``players`` players
    (Kuhn betting for that many, :func:`kuhn_betting`). ``rake``: the fraction of the pot
    the house keeps. ``suits``: the ``n`` ranks are dealt from a deck of ``suits`` cards
    each (dependent signals; equal ranks split the pot)."""
    check_players("kuhn_continuous", players)
    _check_deal("kuhn_continuous", deal)
    if cards and deal == "without_replacement" and cards < players:
        raise GameError(f"'kuhn_continuous': parameter cards must be at least players ({players}), not {cards}")
    s = _signals(cards)
    name = f"G_{cards}" if cards else "G_infinity"
    if players != 2:
        name += f" ({players} players)"
    if cards and deal != "without_replacement":
        name += f" ({deal} deal)"
    if rake:
        name += f" ({_rake_text(rake)[2:]})"
    if suits != 1:
        return _deck_game(
            name + f" ({suits} suits)",
            kuhn_betting(players=players, rake=_check_rake("kuhn_continuous", rake)),
            cards,
            suits,
            players,
            "higher",
            deal,
            {"kind": "kuhn", "cards": cards, "suits": suits}
            | ({"players": players} if players != 2 else {})
            | ({"rake": rake} if rake else {}),
        )
    return BayesianGame(
        name,
        kuhn_betting(players=players, rake=_check_rake("kuhn_continuous", rake)),
        (s,) * players,
        winner="higher",
        deal=deal if cards else "independent",
        parameters={"kind": "kuhn", "cards": cards}
        | ({"players": players} if players != 2 else {})
        | ({"rake": rake} if rake else {}),
    )


def generalized_kuhn_signals(cards: int = 3, players: int = 2, suits: int = 1) -> BayesianGame:
    """G_n as a finite-signal game (the extensive form is ``generalized_kuhn:cards=n``),
    for ``players`` players (at most ``cards``); with ``suits``, ranks 1..n dealt from a
    deck of ``suits`` cards each."""
    check_players("generalized_kuhn", players)
    if suits < 1:
        raise GameError(f"'generalized_kuhn': parameter suits must be at least 1, not {suits}")
    if cards < 2 or cards * suits < players:
        raise GameError(f"'generalized_kuhn': parameter cards must be at least {max(2, players)}, not {cards}")
    return kuhn_continuous(cards=cards, players=players, suits=suits)


def kuhn_signals(players: int = 2) -> BayesianGame:
    """Kuhn poker as a finite-signal game: G_3 for two players; for ``players`` players
    the deck of OpenSpiel's ``kuhn_poker``, cards 1..players + 1 (OpenSpiel numbers them
    from 0)."""
    check_players("kuhn", players)
    game = kuhn_continuous(cards=players + 1, players=players)
    if players != 2:
        game.name = f"Kuhn poker ({players} players)"
    return game


#: Default signal CDFs of river_endgame: player 1's range is weighted towards strong
#: hands, player 2's towards medium ones (breakpoints, F values).
RIVER_DEFAULT_CDF = ("0:0/0.5:0.35/1:1", "0:0/0.3:0.2/0.7:0.8/1:1")


def river_endgame(
    pot: float = 4.0,
    cdf1: str | None = None,
    cdf2: str | None = None,
    cards: int = 0,
    deal: str = "without_replacement",
    rake: float = 0.0,
) -> BayesianGame:
    """Ganzfried and Sandholm (2010), section 8.2: a river endgame with pot ``pot`` and bets of 1; player 1 checks
    or bets; after a check player 2 checks or bets and player 1 calls or folds; after a bet
    player 2 folds, calls or raises 1 and player 1 calls or folds a raise. Signals on
    [0, 1] follow piecewise-linear CDFs ``cdf1``/``cdf2`` given as ``signal:F`` points
    joined by ``/`` (default :data:`RIVER_DEFAULT_CDF`); the higher signal wins. ``cards``
    instead deals that many equally likely cards (``deal``), and refuses CDFs beside it.
    ``rake``: the fraction of the pot the house keeps. The game's name shows every
    parameter given."""
    if pot <= 0:
        raise GameError("river_endgame needs a positive pot")
    _check_deal("river_endgame", deal)
    given = {name: cdf for name, cdf in (("cdf1", cdf1), ("cdf2", cdf2)) if cdf is not None}
    if cards:
        if given:
            # a deck deals equally likely cards: a CDF has nothing to weigh there
            raise GameError(
                f"river_endgame: cards={cards} deals {cards} equally likely cards, which {' and '.join(given)} "
                "cannot weigh; give the CDFs (continuous signals) or cards, not both"
            )
        s1 = s2 = _signals(cards)
        shown = f", cards={cards}" + (f", deal={deal}" if deal != "without_replacement" else "")
    else:
        s1 = _parse_cdf(RIVER_DEFAULT_CDF[0] if cdf1 is None else cdf1)
        s2 = _parse_cdf(RIVER_DEFAULT_CDF[1] if cdf2 is None else cdf2)
        shown = "".join(f", {name}={cdf}" for name, cdf in given.items())
    return BayesianGame(
        f"river_endgame(pot={pot:g}{shown}{_rake_text(rake)})",
        river_betting(pot, rake=_check_rake("river_endgame", rake)),
        (s1, s2),
        winner="higher",
        deal=deal if cards else "independent",
        parameters={"kind": "river", "pot": pot, "cards": cards} | ({"rake": rake} if rake else {}),
    )


def river_cdf_pairs(count: int, seed: int = 0, knots: int = 6, pots: tuple[float, float] = (1.0, 8.0)) -> list[dict]:
    """``count`` river endgames with realistic signal CDFs, as ``river_endgame`` parameters
    (``pot``, ``cdf1``, ``cdf2``).

    A Rhode Island hold'em river (Gilpin and Sandholm's game: one private card, two board
    cards) is dealt at random; a private card's signal is the position of its three-card
    hand among the hands of all 50 cards left (ties share a position), so a higher signal
    wins, as in ``river_endgame``. Each player's range weighs the cards by
    ``exp(beta * signal)`` times random noise (``beta`` drawn per player: a range that
    bet shows strength, one that checked weakness), each card's weight spread over its
    slot of width 1/50; the CDF is that range's, sampled at ``knots + 1`` equally spaced
    signals and joined linearly. The pot is drawn from ``pots`` in steps of 0.5. Signals
    are treated as independent (the card-removal dependence is left out).
    """
    from .hands import three_card

    if count < 0 or knots < 1:
        raise GameError("river_cdf_pairs needs count >= 0 and knots >= 1")
    rng = np.random.default_rng(seed)
    strength = three_card(13, 4)
    xs = np.linspace(0.0, 1.0, knots + 1)
    out = []
    for _ in range(count):
        board = rng.choice(52, size=2, replace=False)
        cards = np.setdiff1d(np.arange(52), board)
        value = strength(cards, np.tile(board, (cards.shape[0], 1)))
        below = np.searchsorted(np.sort(value), value, side="left")
        equal = np.searchsorted(np.sort(value), value, side="right") - below
        position = (below + 0.5 * equal) / cards.shape[0]
        half = 0.5 / cards.shape[0]
        cdfs = []
        for _player in range(2):
            beta = rng.uniform(-2.0, 4.0)
            weight = np.exp(beta * position) * rng.gamma(2.0, size=cards.shape[0])
            weight /= weight.sum()
            # each card's mass spread evenly over [position - half, position + half]
            cover = np.clip((xs[:, None] - (position[None, :] - half)) / (2 * half), 0.0, 1.0)
            F = cover @ weight
            F[0], F[-1] = 0.0, 1.0
            F = np.maximum.accumulate(np.round(F, 6))
            cdfs.append("/".join(f"{x:g}:{f:.6f}" for x, f in zip(xs, F)))
        pot = float(np.round(rng.uniform(*pots) * 2) / 2)
        out.append({"pot": pot, "cdf1": cdfs[0], "cdf2": cdfs[1]})
    return out


# ----------------------------------------------------------------------------- models
_KUHN_P1 = [{"": "bet"}, {"": "check", "check-bet": "fold"}, {"": "check", "check-bet": "call"}, {"": "bet"}]
_KUHN_P2 = [
    {"check": "bet", "bet": "fold"},
    {"check": "check", "bet": "fold"},
    {"check": "check", "bet": "call"},
    {"check": "bet", "bet": "call"},
]

_R1 = [
    {"": "bet", "bet-raise": "fold"},
    {"": "check", "check-bet": "fold"},
    {"": "check", "check-bet": "call"},
    {"": "bet", "bet-raise": "fold"},
    {"": "bet", "bet-raise": "call"},
]
_R2_BLUFF, _R2_FOLD = {"check": "bet", "bet": "raise"}, {"check": "bet", "bet": "fold"}
_R2_REST = [
    {"check": "check", "bet": "fold"},
    {"check": "check", "bet": "call"},
    {"check": "bet", "bet": "call"},
    {"check": "bet", "bet": "raise"},
]

# three-player Kuhn poker (OpenSpiel's rules: cards 1..4, ante 1, bet 1); plans name the
# action at every node they reach
_K3_FOLD = {"": "check", "check-check-bet": "fold", "check-bet-fold": "fold", "check-bet-call": "fold"}
_K3_CALL = {"": "check", "check-check-bet": "call", "check-bet-fold": "call", "check-bet-call": "call"}
_K3_P2_FOLD = {"check": "check", "check-check-bet-fold": "fold", "check-check-bet-call": "fold", "bet": "fold"}
_K3_P2_CALL = {"check": "check", "check-check-bet-fold": "call", "check-check-bet-call": "call", "bet": "call"}
_K3_P3_FOLD = {"check-check": "check", "check-bet": "fold", "bet-fold": "fold", "bet-call": "fold"}
_K3_P3_TOP = {"check-check": "bet", "check-bet": "call", "bet-fold": "call", "bet-call": "call"}

_MODELS: dict[str, dict[str, ParametricModel]] = {
    "one_street": {
        "standard": ParametricModel(
            "standard",
            ([{"": "bet"}, {"": "check"}, {"": "bet"}], [{"bet": "call"}, {"bet": "fold"}]),
            order=[("1.1", "2.1"), ("2.1", "1.2")],
            game="one_street",
            description="player 1 bets for value with the lowest (best) signals, checks in the "
            "middle and bluffs with the highest; player 2 calls with the lowest",
        ),
    },
    "kuhn": {
        "standard": ParametricModel(
            "standard",
            (_KUHN_P1, _KUHN_P2),
            order=[("1.1", "2.1"), ("2.1", "1.2"), ("1.2", "2.2"), ("2.2", "2.3"), ("2.3", "1.3")],
            game="kuhn_continuous",
            description="player 1 bluffs with the lowest signals, check-folds, check-calls, "
            "bets the highest; player 2 after a check bluffs low and bets high, and calls a "
            "bet with the higher signals",
        ),
    },
    "kuhn:players=3": {
        "standard": ParametricModel(
            "standard",
            (
                [_K3_FOLD, _K3_FOLD | {"check-bet-fold": "call"}, _K3_CALL],
                [_K3_P2_FOLD, _K3_P2_FOLD | {"check-check-bet-fold": "call"}, _K3_P2_CALL],
                [
                    _K3_P3_FOLD,
                    _K3_P3_FOLD | {"check-check": "bet"},
                    _K3_P3_FOLD,
                    _K3_P3_FOLD | {"bet-fold": "call"},
                    _K3_P3_TOP,
                ],
            ),
            game="kuhn:players=3",
            description="nobody bets first; player 1 folds to a bet but calls behind a fold with "
            "middle-high cards and calls everything with the best; player 2 alike after a "
            "check-check-bet-fold; player 3 bets after two checks with a band of middle cards "
            "(a bluff), calls behind a fold with middle-high cards and bets and calls with the best",
        ),
    },
    "river": {
        "standard": ParametricModel(
            "standard",
            (_R1, [_R2_BLUFF, _R2_FOLD] + _R2_REST),
            order=[
                ("2.1", "1.1"),
                ("1.1", "2.2"),
                ("2.2", "1.2"),
                ("1.2", "2.3"),
                ("2.3", "2.4"),
                ("2.4", "1.3"),
                ("1.3", "1.4"),
                ("1.4", "2.5"),
            ],
            game="river_endgame",
            description="player 1 bluffs (folding to a raise), check-folds, check-calls, bets and "
            "folds to a raise, bets and calls; player 2 bluff-raises and bluff-bets with the "
            "weakest signals, then check-folds, check-calls, bets and calls, bets and raises",
        ),
        "shifted": ParametricModel(
            "shifted",
            (_R1, [_R2_BLUFF, _R2_FOLD] + _R2_REST),
            order=[
                ("1.1", "2.1"),
                ("2.1", "2.2"),
                ("2.2", "1.2"),
                ("1.2", "2.3"),
                ("2.3", "2.4"),
                ("2.4", "1.3"),
                ("1.3", "1.4"),
                ("1.4", "2.5"),
            ],
            game="river_endgame",
            description="as 'standard', but player 2's bluff-raising threshold lies above player 1's "
            "bluffing threshold (player 2 bluff-raises with a wider range than player 1 bluffs)",
        ),
        "check_first": ParametricModel(
            "check_first",
            ([_R1[1], _R1[2]], [_R2_FOLD, _R2_REST[0], _R2_REST[1], {"check": "bet", "bet": "call"}]),
            order=[("2.1", "1.1"), ("1.1", "2.2"), ("2.2", "2.3")],
            game="river_endgame",
            description="player 1 only checks when first to act (check-folds, then check-calls); "
            "player 2 bluffs, checks behind, and bets for value after a check, calling a bet with the "
            "upper half of its checking range",
        ),
        "bluff_raise_middle": ParametricModel(
            "bluff_raise_middle",
            (_R1, [_R2_FOLD, _R2_REST[0], {"check": "check", "bet": "raise"}] + _R2_REST[1:]),
            order=[
                ("1.1", "2.1"),
                ("2.1", "1.2"),
                ("1.2", "2.2"),
                ("2.2", "2.3"),
                ("2.3", "2.4"),
                ("2.4", "1.3"),
                ("1.3", "1.4"),
                ("1.4", "2.5"),
            ],
            game="river_endgame",
            description="as 'standard', but player 2's bluff-raises come from the check-fold "
            "range instead of the weakest signals",
        ),
    },
}


#: Named sets of models per game kind: several models of which one is expected to hold.
#: ``paper`` is the set of Ganzfried and Sandholm (2010), section 8.2 and appendix, for the
#: river endgame: the model of Ankenman and Chen's Game 10 (``standard``), the same with one
#: threshold shifted (``shifted``), and player 1 only checking first (``check_first``);
#: the first is a US-refinement of the other two.
MODEL_SETS: dict[str, dict[str, list[str]]] = {"river": {"paper": ["standard", "shifted", "check_first"]}}


def model_sets(game: BayesianGame) -> dict[str, list[str]]:
    """The named model sets shipped with ``game``'s kind."""
    kind = game.parameters.get("kind", "")
    if game.num_players != 2:
        kind = f"{kind}:players={game.num_players}"
    return dict(MODEL_SETS.get(kind, {}))


def _passive_then_aggressive(players: int) -> ParametricModel:
    """Kuhn betting for ``players``: below one threshold a player checks and folds at every
    node, above it bets and calls at every node (the first and the second action of each)."""
    tree = kuhn_betting(players=players)
    regions = []
    for p in range(players):
        plans = []
        for action in (0, 1):
            q = next(q for q, plan in enumerate(tree.plans[p]) if set(plan.values()) == {action})
            plans.append({tree.history[v]: tree.action_labels(v)[a] for v, a in tree.plans[p][q].items()})
        regions.append(plans)
    return ParametricModel(
        "standard",
        tuple(regions),
        game=f"generalized_kuhn:players={players},cards={players}",
        description="every player checks and folds below a threshold and bets and calls above it "
        f"(solved and certified with every card dealt, cards={players})",
    )


_MODELS["kuhn:players=4"] = {"standard": _passive_then_aggressive(4)}


def standard_models(game: BayesianGame) -> dict[str, ParametricModel]:
    """The parametric models shipped with ``game``'s kind and number of players, by name."""
    kind = game.parameters.get("kind", "")
    if game.num_players != 2:
        kind = f"{kind}:players={game.num_players}"
    return dict(_MODELS.get(kind, {}))


def resolve_model(game: BayesianGame, model: str | ParametricModel | None) -> ParametricModel:
    """A model object from a name of the game's models, a JSON path, or None (``standard``)."""
    if isinstance(model, ParametricModel):
        return model
    models = standard_models(game)
    name = model or "standard"
    if name in models:
        return models[name]
    if str(name).endswith(".json"):
        return ParametricModel.from_json(name)
    raise ModelError(
        f"'{game.name}' has no model '{name}'; shipped: {', '.join(models) or '(none)'}; or give a .json file"
    )


__all__ = [
    "standard_models",
    "model_sets",
    "MODEL_SETS",
    "resolve_model",
    "one_street",
    "kuhn_continuous",
    "kuhn_signals",
    "generalized_kuhn_signals",
    "check_players",
    "river_endgame",
    "river_cdf_pairs",
    "UnknownInstanceError",
]
