"""A reproducible fuzz corpus for the ``equilibria`` command line (see tests/test_fuzz.py)."""
