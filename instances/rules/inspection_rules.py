"""An inspection game: an inspector with limited inspections and a would-be violator.

After Dresher ("A sampling inspection problem in arms control agreements", 1962), as
surveyed by Avenhaus, von Stengel and Zamir ("Inspection games", 2002).

Over `periods` periods an inspector may inspect at most `inspections` times; a violator
may violate the treaty once, in a period of its choosing. Each period the inspector
decides, unseen, whether to inspect, and then the violator decides whether to violate
now. A violation in an inspected period is caught (violator -1, inspector +1); one in
an uninspected period goes undetected (violator +1, inspector -1); no violation at all
scores 0. After a period without violation the violator learns whether it was
inspected. The violator's value is C(n-1, k) / (C(n, 0) + ... + C(n, k)) for n periods
and k inspections.
"""

PLAYERS = ("Inspector", "Violator")
TITLE = "Inspection game"


def rules(g, periods=3, inspections=1):
    left = inspections
    for period in range(1, periods + 1):
        inspect = left > 0 and g.choose("Inspector", ["inspect", "wait"], secret=True) == "inspect"
        if g.choose("Violator", ["violate", "comply"]) == "violate":
            return g.outcome([1, -1] if inspect else [-1, 1])
        if inspect:
            left -= 1
        g.reveal("Violator", ("period", period, "inspected" if inspect else "not inspected"))
    g.outcome([0, 0])
