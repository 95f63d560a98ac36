"""equilibria: equilibria of games of imperfect information by mathematical programming."""
__version__ = "0.1.0"
