"""``cuerobot`` in a process of its own with the service's camera and vision doubles
(service_fakes): for tests that need a real process, e.g. one killed with SIGKILL.

    python tests/controller/service_cli_runner.py run --players greedy greedy --seed 4 --no-dashboard
"""
import sys

import pytest
from service_fakes import install

from controller.cli import main

if __name__ == "__main__":
    mp = pytest.MonkeyPatch()
    install(mp)
    sys.exit(main(sys.argv[1:]))
