"""Every failure of the driver, as a specific subclass of ``ActuatorError``.

For ``Actuator.shot()``: ``ShotOutcomeUnknown`` means the shot may or may not have been struck;
every other exception means it was not struck.
"""
from __future__ import annotations


class ActuatorError(Exception):
    """Base of every driver failure."""


class RobotTimeout(ActuatorError):
    """The robot did not answer a frame within reply_timeout_s, on every try."""


class FrameCorrupted(ActuatorError):
    """No valid reply to a frame on any try, most tries ending in a NAK or a garbled reply."""


class RobotDisconnected(ActuatorError):
    """The port is gone and did not come back within reconnect_timeout_s."""


class ProtocolMismatch(ActuatorError):
    """The robot's HELLO is unusable: another protocol version or a malformed field."""


class RobotError(ActuatorError):
    """The robot read the frame and refused it with ``ERR <code>``; nothing moved.

    ``code`` is the protocol's ERR code (None when the driver refused before sending).
    """

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code


class ShotRejected(RobotError):
    """The shot is outside the robot's limits or workspace (refused by the driver before sending,
    code None, or by the robot, code E_OUT_OF_RANGE)."""


class RobotEstopped(RobotError):
    """The robot is emergency-stopped (or the motion was aborted by ESTOP); HOME clears it."""


class ShotNotExecuted(ActuatorError):
    """The link failed while the shot was in flight, and the robot's STATUS shows it was not
    struck. Sending the shot again (it gets a new sequence number) is safe."""

    def __init__(self, seq: int, message: str):
        super().__init__(message)
        self.seq = seq


class ShotOutcomeUnknown(ActuatorError):
    """The link failed while the shot was in flight and the robot could not be asked whether it
    was struck. Do not resend: look at the table, or call ``was_struck(seq)`` once the line is back."""

    def __init__(self, seq: int, message: str):
        super().__init__(message)
        self.seq = seq
