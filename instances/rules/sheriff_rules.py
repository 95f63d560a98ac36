"""Sheriff: a smuggler's bribes and a sheriff's inspection (general-sum).

OpenSpiel's rules, after Farina, Ling, Fang and Gordon ("Correlation in extensive-form
games: saddle-point formulation and benchmarks", 2019).

The smuggler secretly loads 0 to `max_items` illegal items. For `rounds` rounds the
smuggler offers a bribe of 0 to `max_bribe` and the sheriff answers whether it will
inspect; only the last round's bribe and answer count. Not inspected, the smuggler gains
`item_value` per item and pays the bribe to the sheriff. Inspected, a smuggler with items
pays `item_penalty` per item to the sheriff; a sheriff who inspects an empty cargo pays
`sheriff_penalty` to the smuggler.
"""

PLAYERS = ("Smuggler", "Sheriff")
TITLE = "Sheriff"


def rules(g, max_items=3, max_bribe=3, rounds=4, item_value=1.0, item_penalty=2.0, sheriff_penalty=3.0):
    items = g.choose("Smuggler", [f"load {n}" for n in range(max_items + 1)], secret=True)
    items = int(items.split()[1])
    for _ in range(rounds):
        bribe = int(g.choose("Smuggler", [f"bribe {b}" for b in range(max_bribe + 1)]).split()[1])
        inspect = g.choose("Sheriff", ["pass", "inspect"]) == "inspect"
    if not inspect:
        return g.outcome([items * item_value - bribe, bribe])
    if items > 0:
        return g.outcome([-items * item_penalty, items * item_penalty])
    g.outcome([sheriff_penalty, -sheriff_penalty])
