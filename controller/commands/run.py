"""``cuerobot run``: the main job (placeholder until the engine lands)."""
