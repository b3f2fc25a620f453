"""The simulated robot: its firmware (``firmware``), the faulty line (``faults``), the pty it
serves on (``robot``), what its strikes act on (``world``) and its configuration (``config``)."""
