"""The simulated robot: its firmware (``firmware``), the faulty line (``faults``), the pty it
serves on (``robot``) and what its strikes act on (``world``); its configuration is ``config.sim``."""
