"""What every route shares: the skeleton that runs a route's steps (``skeleton``), their
options (``options``), the registry of routes, the planner that chooses one (``plan``),
answers (``answer``), one deadline for a whole run (``deadline``), the anytime rounds'
records (``anytime``) and worker pools (``processes``)."""
