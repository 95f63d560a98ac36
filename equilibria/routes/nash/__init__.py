"""MIP Nash: equilibria of general-sum and n-player games by mixed-integer programming
(``route``), with rounds of refinement for approximate products (``rounds``)."""
