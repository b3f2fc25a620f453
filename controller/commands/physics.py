"""``cuerobot physics ...`` and ``cuerobot bench physics``."""
