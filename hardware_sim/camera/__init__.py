"""The simulated table camera: renders table scenes from a table state and serves them like a camera.

Public API: `TableScene`, `PlacedCard`, `TableLayout` (the state), the test scenes (`random_scene`: cards lying
apart or overlapping; `fanned_scene`: fanned hands and a pile), `render(scene, seed)` and `render_with_truth(...)`
(one frame), `SimCamera` (the device, advanced by `process(dt)`), `RenderOptions`, the face sets
(`procedural_faces`, `load_face_set`), and `SimSource` / `open_source` (the camera as a vision frame source, and
any source opened by its spec, "sim" included).
"""

from hardware_sim.camera.art import FaceSet, load_face_set, procedural_faces
from hardware_sim.camera.device import ScriptStep, SimCamera, demo_script
from hardware_sim.camera.render import (
    CardTruth,
    RenderedFrame,
    RenderOptions,
    calibration_for,
    camera_homography,
    render,
    render_with_truth,
)
from hardware_sim.camera.scene import CARD_MM, PlacedCard, TableLayout, TableScene, fanned_scene, random_scene
from hardware_sim.camera.source import SimSource, open_source

__all__ = [
    "CARD_MM", "CardTruth", "FaceSet", "PlacedCard", "RenderOptions", "RenderedFrame", "ScriptStep", "SimCamera",
    "SimSource", "TableLayout", "TableScene", "calibration_for", "camera_homography", "demo_script", "fanned_scene",
    "load_face_set", "open_source", "procedural_faces", "random_scene", "render", "render_with_truth",
]
