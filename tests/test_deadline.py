"""One deadline for a whole run: a step that runs past it is stopped (equilibria.core.deadline)."""

import threading
import time

import pytest

from equilibria.core.deadline import DeadlineExpired, OutOfTime, enforced
from equilibria.models.errors import NoAnswerError


def test_a_step_that_runs_past_the_deadline_is_stopped():
    deadline = time.perf_counter() + 0.05
    with pytest.raises(DeadlineExpired):
        with enforced(deadline, grace=0.05):
            while True:  # a step that never checks the time
                pass
    # not before the deadline and its grace: a lower bound that no machine's speed can
    # break (the timer waits on the same monotonic clock; a slow machine only stops later)
    assert time.perf_counter() >= deadline + 0.05
    # not an Exception: code that turns any Exception into its own error cannot swallow it;
    # routes.solve turns it into OutOfTime, which the command line ends with (exit 1)
    assert not issubclass(DeadlineExpired, Exception) and issubclass(OutOfTime, NoAnswerError)


def test_a_block_that_ends_in_time_is_left_alone_and_leaves_nothing_pending():
    with enforced(time.perf_counter() + 0.05):
        pass
    time.sleep(0.2)  # past the deadline: no exception may arrive later
    for _ in range(10**5):  # bytecodes, where a pending exception would be raised
        pass


def test_without_a_deadline_nothing_is_enforced():
    with enforced(None):
        time.sleep(0.01)


def test_the_deadline_reaches_the_thread_that_set_it():
    caught = []

    def work():
        try:
            with enforced(time.perf_counter() + 0.05):
                while True:
                    pass
        except DeadlineExpired:
            caught.append(threading.get_ident())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(30)
    assert caught == [thread.ident]


def test_a_route_past_its_time_limit_ends_with_no_answer_in_one_line():
    """Four-player Kuhn poker with an epsilon no round can meet: the round's program is
    built for longer than the limit, and the command ends at the deadline with one line,
    exit 1 (it ran 23 s past a 2 s limit before)."""
    from tests.conftest import run_cli

    res = run_cli("nash", "kuhn:players=4", "--time-limit", "1", "--epsilon", "1e-300", "--quiet")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 1 and len(lines) == 1 and "time limit" in lines[0], res.stderr
