"""Scripts that reproduce published figures and measurements with equilibria (GameShrink's
rules and sweeps, the qualitative-models figures, Rhode Island hold'em solved); run them
from a checkout as ``python -m research.NAME``. They are not installed with the package."""
