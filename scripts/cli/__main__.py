"""``python -m equilibria.scripts.cli``: the ``equilibria`` command."""

from ..console import entry

entry()
