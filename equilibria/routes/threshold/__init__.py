"""Threshold programs of signal games: the route (``route``), rounds on located grids for
three players and more (``located``), and models found from the game (``discovery``)."""
