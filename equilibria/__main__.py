"""``python -m equilibria``: the ``equilibria`` command, as the console script runs it."""

from .scripts.console import entry

entry()
