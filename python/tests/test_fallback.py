"""The fallback watch on instrumented code: what a call's handlers swallowed, and what they passed
on, were never reached, or caught outside a call."""

import contextlib
import types

from adaexplore_worker.integrity.fallback import RECORDER, FallbackWatch, instrumented_code

SOURCE = '''
import contextlib

try:
    import no_such_module_anywhere
except ImportError:
    no_such_module_anywhere = None


def fallback(x):
    try:
        return kernel(x)
    except ValueError:
        return -x


def wraps(x):
    try:
        return kernel(x)
    except ValueError as e:
        raise RuntimeError("kernel failed") from e


def suppressed(x):
    y = None
    with contextlib.suppress(Exception):
        y = kernel(x)
    return -x if y is None else y


def loops(items):
    it = iter(items)
    while True:
        try:
            next(it)
        except StopIteration:
            return "done"


def kernel(x):
    if x < 0:
        raise ValueError("negative input")
    return x
'''


def load() -> tuple[types.ModuleType, FallbackWatch]:
    watch = FallbackWatch()
    module = types.ModuleType("candidate")
    module.__dict__[RECORDER] = watch
    exec(instrumented_code(SOURCE, "/tmp/candidate.py"), module.__dict__)
    return module, watch


def call(watch: FallbackWatch, during: str, fn, *args):
    watch.start(during)
    raised = None
    try:
        return fn(*args)
    except BaseException as e:  # noqa: BLE001
        raised = e
    finally:
        watch.stop(raised)


def test_an_import_time_probe_is_not_a_call() -> None:
    _, watch = load()
    assert watch.swallowed == []


def test_a_handler_that_goes_on_swallowed_the_exception() -> None:
    module, watch = load()
    assert call(watch, "trial 0", module.fallback, 3) == 3  # Nothing caught: nothing recorded.
    assert watch.swallowed == []
    assert call(watch, "trial 1", module.fallback, -3) == 3
    assert call(watch, "trial 2", module.fallback, -4) == 4
    assert watch.swallowed == [{"line": 13, "type": "ValueError", "message": "negative input",
                                "during": "trial 1", "count": 2}]


def test_a_handler_that_raises_on_swallowed_nothing() -> None:
    module, watch = load()
    assert call(watch, "trial 0", module.wraps, -1) is None  # It raised RuntimeError.
    assert watch.swallowed == []


def test_a_context_manager_that_suppresses_is_seen() -> None:
    module, watch = load()
    assert call(watch, "timed run 3", module.suppressed, -2) == 2
    assert [(s["line"], s["type"], s["during"]) for s in watch.swallowed] == [
        (26, "ValueError", "timed run 3")]


def test_loops_ending_on_stop_iteration_are_not_fallbacks() -> None:
    module, watch = load()
    assert call(watch, "trial 0", module.loops, [1, 2]) == "done"
    assert watch.swallowed == []


def test_outside_a_call_nothing_is_recorded() -> None:
    module, watch = load()
    assert module.fallback(-1) == 1
    assert watch.swallowed == []
    with contextlib.suppress(Exception):
        module.wraps(-1)
    assert watch.swallowed == []
