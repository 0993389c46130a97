"""A recognizer with a second reading process (`Recognizer(workers=2)`, `vision.workers`) gives the very
detections a single process gives, in the same order, and loses none when that process dies or hangs."""

from __future__ import annotations

import contextlib
import os
import signal

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision.pipeline import Recognizer
from vision.workers import ReadingWorkers

FRAMES = [render_with_truth(random_scene(seed, cards=10, face_down=0.2), seed, RenderOptions()).image
          for seed in (1000, 1001, 1002, 1017)]


@pytest.fixture(scope="module")
def alone() -> list[list[object]]:
    return [list(Recognizer().identify(frame)) for frame in FRAMES]


def test_two_processes_read_the_same_detections_in_the_same_order(alone: list[list[object]]) -> None:
    with Recognizer(workers=2) as recognizer:
        assert recognizer.workers == 2
        assert recognizer.identify(FRAMES[0]) == alone[0]  # read here while the worker starts
        assert recognizer.start_workers()
        for frame, expected in zip(FRAMES, alone, strict=True):
            assert recognizer.identify(frame) == expected
        assert recognizer._workers is not None and recognizer._workers.alive
        assert recognizer._workers.failures == []
    assert recognizer.workers == 1  # closed: reads alone from now on
    assert recognizer.identify(FRAMES[0]) == alone[0]


def test_frames_of_other_sizes_go_through_the_shared_memory(alone: list[list[object]]) -> None:
    small = render_with_truth(random_scene(1005, cards=6, face_down=0.2), 1005,
                              RenderOptions(width=960, height=540)).image
    with Recognizer(workers=2) as recognizer:
        assert recognizer.start_workers()
        assert recognizer.identify(small) == Recognizer().identify(small)
        assert recognizer.identify(FRAMES[1]) == alone[1]
        assert recognizer.identify(small) == Recognizer().identify(small)


def _working(recognizer: Recognizer, alone: list[list[object]]) -> tuple[ReadingWorkers, int]:
    """The recognizer's workers, ready and having read a frame right, and the worker process's id."""
    assert recognizer.start_workers()
    assert recognizer.identify(FRAMES[0]) == alone[0]
    workers = recognizer._workers
    assert workers is not None and workers._worker is not None
    pid = workers._worker.process.pid
    assert pid is not None
    return workers, pid


def test_a_killed_worker_loses_no_card_and_is_started_again(alone: list[list[object]]) -> None:
    with Recognizer(workers=2) as recognizer:
        workers, pid = _working(recognizer, alone)
        os.kill(pid, signal.SIGKILL)
        assert workers._worker is not None
        workers._worker.process.wait(timeout=5)
        assert recognizer.identify(FRAMES[1]) == alone[1]  # read in this process instead
        assert len(workers.failures) == 1 and "Broken pipe" in workers.failures[0]
        assert recognizer.identify(FRAMES[2]) == alone[2]  # here or by a new worker, as it starts
        assert recognizer.start_workers()
        assert recognizer.identify(FRAMES[2]) == alone[2]
        assert len(workers.failures) == 1 and workers.alive
        assert workers._worker is not None and workers._worker.process.pid != pid


def test_a_hung_worker_is_given_up_within_the_timeout(alone: list[list[object]]) -> None:
    with Recognizer(workers=2) as recognizer:
        workers, pid = _working(recognizer, alone)
        os.kill(pid, signal.SIGSTOP)
        try:
            assert recognizer.identify(FRAMES[3]) == alone[3]
        finally:
            with contextlib.suppress(ProcessLookupError):  # given up, it was killed
                os.kill(pid, signal.SIGCONT)
        assert any("TimeoutError" in why for why in workers.failures)
        assert recognizer.identify(FRAMES[1]) == alone[1]


def test_a_worker_that_cannot_start_again_leaves_the_recognizer_reading_alone(alone: list[list[object]]) -> None:
    with Recognizer(workers=2) as recognizer:
        workers = recognizer._workers
        assert workers is not None
        workers.restarts = 99  # as after many failures
        assert recognizer.identify(FRAMES[2]) == alone[2]
        assert not workers.alive


@pytest.mark.parametrize("workers", [0, 3, -1])
def test_only_one_or_two_processes(workers: int) -> None:
    with pytest.raises(ValueError, match="workers must be 1 or 2"):
        Recognizer(workers=workers)


def test_a_frame_with_one_outline_is_read_here() -> None:
    frame = render_with_truth(random_scene(1003, cards=1, face_down=0.0), 1003, RenderOptions()).image
    with Recognizer(workers=2) as recognizer:
        found = recognizer.identify(frame)
        assert found == Recognizer().identify(frame)
        assert recognizer._workers is not None and not recognizer._workers.alive  # never needed
    assert np.all([d.face in ("up", "down") for d in found])


def test_a_worker_that_dies_before_it_is_ready_is_replaced(alone: list[list[object]]) -> None:
    with Recognizer(workers=2) as recognizer:
        workers = recognizer._workers
        assert workers is not None
        first = workers._started()
        assert first is not None
        first.process.kill()
        first.process.wait(timeout=5)
        assert recognizer.identify(FRAMES[0]) == alone[0]
        assert len(workers.failures) == 1 and workers.failures[0].startswith("start:")
        assert recognizer.start_workers()
        assert recognizer.identify(FRAMES[1]) == alone[1]
        assert len(workers.failures) == 1
