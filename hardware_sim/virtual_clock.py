"""An asyncio event loop on a virtual clock, for running the host and the simulators without waiting.

`loop.time()` starts at 0 and moves only when the loop has nothing ready to run: it then jumps straight to
the next timer (an `asyncio.sleep`, a `wait_for` deadline, a heartbeat). A test of a 5-second deadline
takes no real time, and its outcome does not depend on how busy the machine is.

Use it for code that lives wholly in the loop: the shoe driver over `MemoryLink`, whose simulator is
advanced by `process(dt)` with the loop's own clock. With nothing scheduled, the loop blocks on real I/O as
usual; but a timer pending while a real thread or process works would fire early, so code that waits on
threads, ptys or sockets belongs on a real clock.

    result = run_virtual(main())
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0


class _JumpingSelector(selectors.DefaultSelector):
    """Polls without blocking; when nothing is ready and the loop would wait for a timer, moves the clock."""

    def __init__(self, clock: _Clock) -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer at all: only real I/O (a thread's wake-up) can come
            return super().select(None)
        ready = super().select(0)
        if not ready and timeout > 0:
            self._clock.now += timeout
        return ready


class VirtualClockLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._virtual = _Clock()
        super().__init__(_JumpingSelector(self._virtual))

    def time(self) -> float:
        return self._virtual.now


def run_virtual(coro: Coroutine[Any, Any, T], *, timeout: float = 600.0) -> T:
    """Run `coro` to completion on a fresh virtual-clock loop; `timeout` is in virtual seconds."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(bounded())
