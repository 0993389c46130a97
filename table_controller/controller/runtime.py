"""Assembling a live table from its settings: the shoe (a device or the simulator), the journal, the
controller, crash recovery. The CLI's ``run`` and ``demo`` and the tests use :func:`open_table`.

With no ``--shoe``, a shoe simulator on a pty is driven through the same firmware-bridge client a real
shoe on ``/dev/ttyUSB0`` would use. With ``sim_process=True`` (what ``cardtable run`` and ``demo`` use) the
simulator runs as a process of its own that outlives the controller, as a real shoe does
(:mod:`table_controller.controller.sim_process`); otherwise it runs in this process (tests, benchmarks).

After a restart the controller replays the journal; a hand that was in progress resumes where it stood on
a shoe that kept its state (a real shoe, or the simulator process re-attached): the cards it dealt while
the controller was down are taken from its log (:meth:`TableController.resume`). A freshly started
simulator has a new deck, so such a hand is voided, journaled with the reason, every chip returned.

The settings' game (stakes, house rules) may change between sessions on the same journal: every hand is replayed,
and a hand in play is finished or voided, with the game it was dealt with (its ``hand.start`` entry carries it);
new hands deal the settings' game (:meth:`TableReads.game_change` says when the two differ).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from firmware_bridge.driver import ShoeClient
from table_controller.controller.alert_frames import FOLDER_NAME, AlertFrames
from table_controller.controller.devices import ShoePort, VirtualShoe
from table_controller.controller.durable import DurableJournal
from table_controller.controller.journal_port import JournalPort, MemoryJournal
from table_controller.controller.shoe_link import ShoeLink
from table_controller.controller.sim_process import SimProcess, attach_or_start
from table_controller.controller.table import TableController
from table_controller.controller.views import TableConfig

if TYPE_CHECKING:  # the camera (OpenCV, the vision pipeline) and the simulator are imported only when used
    from hardware_sim.shoe.adapters import PtyShoe
    from table_controller.controller.camera import TableCamera

__all__ = ["Table", "close_table", "open_table", "shoe_truth"]


@dataclass
class Table:
    controller: TableController
    shoe: ShoePort
    journal: JournalPort
    shoe_label: str
    journal_label: str
    simulator: PtyShoe | None = None
    camera: TableCamera | None = None
    recovered: int = 0
    sim_process: SimProcess | None = None



class RuntimeConfig(TableConfig, Protocol):
    """What opening a table reads from its configuration besides the table itself: devices and storage (the
    service's settings have these fields)."""

    @property
    def shoe(self) -> str | None: ...

    @property
    def camera(self) -> str | None: ...

    @property
    def camera_calibration(self) -> Path | None: ...

    @property
    def camera_period_s(self) -> float: ...

    @property
    def card_reader(self) -> bool: ...

    @property
    def data(self) -> Path: ...

    @property
    def db(self) -> str | None: ...


async def open_table(settings: RuntimeConfig, *, seed: int | None = None, fast: bool = False,
                     sim_speed: float = 4.0, memory_journal: bool = False, virtual_shoe: bool = False,
                     camera: bool = True, sim_process: bool = False) -> Table:
    # The journal first: a second controller on the same data is refused by the journal's lock before it
    # touches the shoe (or the simulator process the running controller uses).
    journal: JournalPort
    if memory_journal:
        journal, jlabel = MemoryJournal(), "in memory (not kept)"
    else:
        durable = DurableJournal.open(settings.table_id, data_dir=settings.data, url=settings.db)
        journal, jlabel = durable, durable.description
    try:
        shoe, label, simulator, process = await _open_shoe(settings, seed=seed, fast=fast, sim_speed=sim_speed,
                                                           virtual_shoe=virtual_shoe, sim_process=sim_process)
    except BaseException:
        journal.close()
        raise
    controller = TableController(settings, shoe=shoe, journal=journal)
    if not memory_journal:  # the frames behind camera alerts are kept beside the journal, for after a restart
        controller.alert_frames = AlertFrames(Path(settings.data) / FOLDER_NAME)
    try:
        recovered = controller.recover()
    except BaseException:  # a journal it cannot replay (JournalEntryError): nothing stays open behind it
        with contextlib.suppress(Exception):
            await shoe.close()
        if simulator is not None:
            simulator.stop()
        if process is not None:
            process.stop()
        journal.close()
        raise
    if recovered and simulator is not None and controller.in_play():
        await controller.void_in_play("the simulated shoe restarted with a new deck")
    if recovered and process is not None and process.fresh and controller.in_play():
        await controller.void_in_play("the shoe simulator was not running at this start (it was stopped or the "
                                      "machine restarted), so a fresh one holds a new deck")
    if isinstance(shoe, ShoeLink):
        shoe.listen_returns(controller.take_returned)  # a shoe that scans returned cards (returns.py)
    table_camera = None
    if camera:
        try:
            table_camera = open_camera(settings, controller, seed=seed)
        except Exception:
            await close_table(Table(controller=controller, shoe=shoe, journal=journal, shoe_label=label,
                                    journal_label=jlabel, simulator=simulator, sim_process=process))
            raise
        controller.camera = table_camera
    table = Table(controller=controller, shoe=shoe, journal=journal, shoe_label=label, journal_label=jlabel,
                  simulator=simulator, camera=table_camera, recovered=recovered, sim_process=process)
    if table_camera is not None:
        from table_controller.controller.camera import SimTableSource

        if isinstance(table_camera.source, SimTableSource):  # the simulated felt holds the real cards, which
            table_camera.source.truth = shoe_truth(table)  # the table may not know
    return table


async def _open_shoe(settings: RuntimeConfig, *, seed: int | None, fast: bool, sim_speed: float, virtual_shoe: bool,
                     sim_process: bool) -> tuple[ShoePort, str, PtyShoe | None, SimProcess | None]:
    if virtual_shoe:
        return VirtualShoe(seed=seed, has_reader=settings.card_reader), "virtual shoe (in memory)", None, None
    if settings.shoe:
        link = ShoeLink(ShoeClient(settings.shoe), has_reader=settings.card_reader, label=settings.shoe)
        await link.connect()
        return link, f"shoe on {settings.shoe}", None, None
    if sim_process:
        process = attach_or_start(Path(settings.data), seed=seed, fast=fast, speed=1.0 if fast else sim_speed)
        link = ShoeLink(ShoeClient(process.url), has_reader=settings.card_reader,
                        label=f"simulator process {process.pid} on {process.url}")
        try:
            await link.connect()
        except BaseException:
            await link.close()
            if process.fresh:
                process.stop()
            raise
        how = "started" if process.fresh else "re-attached"
        return link, f"simulated shoe, process {process.pid} ({how}), on {process.url}", None, process
    from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty

    timings = SimTimings.fast() if fast else SimTimings()
    simulator = start_pty(ShoeSimulator(seed=seed, timings=timings), speed=1.0 if fast else sim_speed)
    link = ShoeLink(ShoeClient(simulator.url), has_reader=settings.card_reader, label=f"simulator {simulator.url}")
    try:
        await link.connect()
    except BaseException:
        simulator.stop()
        raise
    return link, f"simulated shoe on {simulator.url}", simulator, None


def open_camera(settings: RuntimeConfig, controller: TableController, *, seed: int | None = None) -> TableCamera:
    """The table camera: ``--camera SOURCE`` (any OpenCV source, with its calibration file) or, by default,
    the simulated camera filming this table. Raises :class:`DeviceError` for a source that cannot be used."""
    from table_controller.controller.camera import SimTableSource, TableCamera
    from table_controller.controller.errors import DeviceError

    if not settings.camera:
        source = SimTableSource(controller, seed=seed or 0)
        return TableCamera(source, calibration=source.calibration(), period_s=settings.camera_period_s)
    from hardware_sim.camera import open_source
    from vision.calibration import TableCalibration
    from vision.errors import VisionError

    try:
        real = open_source(settings.camera)
        calibration = (TableCalibration.load(settings.camera_calibration) if settings.camera_calibration
                       else real.calibration())
    except (VisionError, OSError, ValueError) as exc:
        raise DeviceError(f"camera {settings.camera!r}: {exc}", code="camera_unavailable") from exc
    if calibration is None:
        real.close()
        raise DeviceError(f"camera {settings.camera!r} needs a table calibration: give camera_calibration in "
                          "--config (see docs/operations.md)", code="camera_uncalibrated")
    return TableCamera(real, calibration=calibration, period_s=settings.camera_period_s, label=real.name)


async def close_table(table: Table) -> None:
    with contextlib.suppress(Exception):
        await table.shoe.close()
    if table.simulator is not None:
        table.simulator.stop()
    if table.sim_process is not None:
        table.sim_process.stop()
    with contextlib.suppress(Exception):
        table.journal.close()


def shoe_truth(table: Table) -> Any:
    """For simulated players at a shoe without a reader: the faces the simulated shoe dealt, in order (the
    players see their own cards; the table does not). None with a real shoe."""
    shoe = table.shoe
    if isinstance(shoe, VirtualShoe):
        return lambda: list(shoe.dealt)
    if table.simulator is not None:
        from firmware_bridge.cards import card_code

        control = table.simulator.control
        return lambda: [card_code(c.face) for c in control.cards_out()]
    if table.sim_process is not None and isinstance(shoe, ShoeLink):
        return lambda: list(shoe.faces)
    return None
