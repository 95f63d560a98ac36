"""MIP Nash: equilibria of general-sum and n-player games by mixed-integer programming
(``route``, one program built and solved by ``program``), with rounds of refinement for
approximate products (``rounds``); and every equilibrium of small games (``all``,
``count``): the methods in ``enumeration``, the answer listing them in ``every``."""
