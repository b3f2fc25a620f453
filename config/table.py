"""``table.yaml``: the table, balls, cloth, cushions and cue, read into the built Table and the
PhysicsParams."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.reader import Section, default_path, load_yaml
from planner.physics.params import PhysicsParams
from planner.table import Table, TableSpecs, build_pocket_table

M = "a positive number of metres"


@dataclass(frozen=True)
class TableSettings:
    table: Table
    physics: PhysicsParams
    path: str


def _pocket(sec: Section, key: str) -> dict:
    p = sec.section(key)
    return dict(width=p.number("width", M, positive=True),
                angle=p.number("angle", "an angle in degrees between 0 and 45", lo=0.0, hi=45.0),
                depth=p.number("depth", "a number of metres (>= 0)", nonneg=True),
                radius=p.number("radius", M, positive=True),
                jaw_radius=p.number("jaw_radius", M, positive=True))


def parse_table_settings(root: Section) -> TableSettings:
    """Build a TableSettings from a loaded YAML section; raises ConfigError naming file and key."""
    t = root.section("table")
    corner, side = _pocket(t, "corner_pocket"), _pocket(t, "side_pocket")
    specs = TableSpecs(
        name=t.string("name", default="table"),
        width=t.number("width", M, positive=True),
        length=t.number("length", M, positive=True),
        cushion_width=t.number("cushion_width", M, positive=True),
        cushion_height=t.number("cushion_height", M, positive=True),
        pocket_drop=t.number("pocket_drop", M, positive=True),
        corner_pocket_width=corner["width"], corner_pocket_angle=corner["angle"],
        corner_pocket_depth=corner["depth"], corner_pocket_radius=corner["radius"],
        corner_jaw_radius=corner["jaw_radius"],
        side_pocket_width=side["width"], side_pocket_angle=side["angle"],
        side_pocket_depth=side["depth"], side_pocket_radius=side["radius"],
        side_jaw_radius=side["jaw_radius"],
    )
    b, cl, cu, cue = (root.section(k) for k in ("ball", "cloth", "cushion", "cue"))
    fc = b.section("friction_curve")
    R = b.number("radius", M, positive=True)
    h = specs.cushion_height
    if not R < h < 2 * R:
        raise t.fail("cushion_height", f"between the ball radius and diameter ({R} .. {2 * R} m)", h)
    unit = "a number between 0 and 1"
    phys = PhysicsParams(
        R=R, m=b.number("mass", "a positive number of kilograms", positive=True),
        e_b=b.number("restitution", unit, lo=0.0, hi=1.0),
        bb_a=fc.number("a", "a number >= 0", nonneg=True), bb_b=fc.number("b", "a number >= 0", nonneg=True),
        bb_c=fc.number("c", "a number >= 0 [s/m]", nonneg=True),
        u_s=cl.number("sliding_friction", "a positive number", positive=True),
        u_r=cl.number("rolling_friction", "a positive number", positive=True),
        u_sp_prop=cl.number("spinning_friction_prop", "a positive number", positive=True),
        g=cl.number("gravity", "a positive number of m/s^2", positive=True),
        e_c=cu.number("restitution", unit, lo=0.0, hi=1.0),
        f_c=cu.number("friction", "a number >= 0", nonneg=True),
        cue_M=cue.number("mass", "a positive number of kilograms", positive=True),
        cue_end_mass=cue.number("end_mass", "a positive number of kilograms", positive=True),
        cue_tip_radius=cue.number("tip_radius", M, positive=True),
    )
    return TableSettings(table=build_pocket_table(specs), physics=phys, path=root.path)


def load_table_settings(path: str | Path | None = None) -> TableSettings:
    """Read and validate a table YAML file (default ``config/table.yaml``)."""
    return parse_table_settings(load_yaml(path or default_path("table.yaml")))
