"""Errors a user can cause. The CLI prints them as one line and exits non-zero."""


class EquilibriaError(Exception):
    """Base class of every error caused by user input (games, files, names, options)."""


class GameError(EquilibriaError):
    """A game violates a structural rule (probabilities, information sets, perfect recall)."""


class FileFormatError(EquilibriaError):
    """A game file is malformed; the message names the file and line."""


class StrategyFileError(EquilibriaError):
    """A strategy or solution file cannot be read, or does not fit the game; the message
    names the file and the first offending line or variable."""


class UnknownInstanceError(EquilibriaError):
    """An instance name is not registered; the message lists the known names."""


class SolverError(EquilibriaError):
    """A backend cannot be used as asked: not installed, an unknown method or option, a
    program it cannot take (bad input, exit 2). A backend that ran and failed raises
    :class:`SolveFailed` (no answer, exit 1)."""


class NoAnswerError(EquilibriaError):
    """The run ended without the answer asked for: the input was fine, but no solver
    result, model or time left gave a certified one. The command line exits with 1 (bad
    input exits with 2)."""


class SolveFailed(SolverError, NoAnswerError):
    """A backend ran and returned no usable solution (none at all, or one that the exact
    certificate rejects)."""


class OutputError(EquilibriaError):
    """An output file cannot be written; the message names the path and the reason."""
