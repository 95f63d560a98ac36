"""Support enumeration for two-player normal-form games, as a route of equilibria.

The registration names the steps and the options by ``module:Class``: equilibria imports
``support_route.options`` (no numpy) to build the ``equilibria support`` command's flags,
and ``support_route.steps`` only when the route runs.
"""

from equilibria.core.registry import register_route


def register() -> None:
    """Register the ``support`` route (the ``equilibria.routes`` entry point)."""
    register_route(
        "support",
        "normal",
        "support_route.steps:SupportEnumeration",
        "support enumeration (two players, normal form)",
        options="support_route.options:SupportOptions",
    )
