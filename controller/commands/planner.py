"""CLI commands for the planner area (see controller/cli.py for the registry contract)."""
