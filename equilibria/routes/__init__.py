"""The routes, one family per module or package: the sequence-form LP (``lp``), first-order
methods on its saddle point, GameShrink's shrunk LP (``shrink``), MIP Nash (``nash``) and
threshold programs (``threshold``). Each is a :class:`equilibria.core.skeleton.Steps`
subclass registered in :mod:`equilibria.core.skeleton`; routes of other packages register
through the ``equilibria.routes`` entry-point group."""
