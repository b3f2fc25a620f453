"""CLI commands for the vision area (see controller/cli.py for the registry contract)."""
