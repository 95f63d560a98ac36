"""The routes, one family per module or package: the sequence-form LP (``lp``), first-order
methods on its saddle point (``first_order``), GameShrink's shrunk LP (``shrink``), MIP Nash
(``nash``) and threshold programs (``threshold``), with the options of each (``options``).
Each is a :class:`equilibria.core.steps.Steps` subclass registered in
:mod:`equilibria.core.registry`; routes of other packages register through the
``equilibria.routes`` entry-point group."""
