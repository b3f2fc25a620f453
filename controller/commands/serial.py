"""CLI commands for the serial area (see controller/cli.py for the registry contract)."""
