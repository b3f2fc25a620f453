"""The engine against pooltool 0.6.0's reference cases, through the real CLI."""
import json
import subprocess
import sys

import numpy as np

from planner.physics.reference import load_reference
from planner.table import TableSpecs, build_pocket_table


def test_check_reference_cli_passes_every_case(shared_dir):
    path = shared_dir / "reference" / "physics_cases.json"
    out = subprocess.run([sys.executable, "-m", "controller.cli", "physics", "check-reference", str(path), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    summary = json.loads(out.stdout)
    assert summary["cases"] == 150
    assert summary["failed"] == []
    assert set(summary["per_category"]) == set("ABCDE")
    assert all(c["passed"] == c["cases"] for c in summary["per_category"].values())


def test_check_reference_detects_a_wrong_model(shared_dir):
    """The comparison has teeth: a 6 % lower cushion restitution fails cushion cases."""
    import dataclasses

    from planner.physics.engine import Simulator
    from planner.physics.reference import check_case

    table, params, cases = load_reference(shared_dir / "reference" / "physics_cases.json")
    sim = Simulator(table, dataclasses.replace(params, e_c=0.8))
    c_cases = [c for c in cases if c["category"] == "C"][:5]
    assert not any(check_case(sim, c).passed for c in c_cases)


def test_table_builder_reproduces_reference_geometry(shared_dir):
    table, _, _ = load_reference(shared_dir / "reference" / "physics_cases.json")
    sp = json.loads((shared_dir / "reference" / "physics_cases.json").read_text())["meta"]["table"]["specs"]
    built = build_pocket_table(TableSpecs(
        name="x", width=sp["w"], length=sp["l"], cushion_width=sp["cushion_width"],
        cushion_height=sp["cushion_height"], corner_pocket_width=sp["corner_pocket_width"],
        corner_pocket_angle=sp["corner_pocket_angle"], corner_pocket_depth=sp["corner_pocket_depth"],
        corner_pocket_radius=sp["corner_pocket_radius"], corner_jaw_radius=sp["corner_jaw_radius"],
        side_pocket_width=sp["side_pocket_width"], side_pocket_angle=sp["side_pocket_angle"],
        side_pocket_depth=sp["side_pocket_depth"], side_pocket_radius=sp["side_pocket_radius"],
        side_jaw_radius=sp["side_jaw_radius"]))
    for ids, arrays in ((table.lin_ids, ("lin_p1", "lin_p2", "lin_normal")),
                        (table.circ_ids, ("circ_center", "circ_radius")),
                        (table.pocket_ids, ("pocket_center", "pocket_radius"))):
        for k, seg in enumerate(ids):
            j = {"lin_p1": built.lin_ids, "circ_center": built.circ_ids,
                 "pocket_center": built.pocket_ids}[arrays[0]].index(seg)
            for name in arrays:
                np.testing.assert_allclose(getattr(built, name)[j], getattr(table, name)[k], atol=1e-12,
                                           err_msg=f"{name} of {seg}")
