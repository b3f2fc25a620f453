"""Serial driver for the cue robot: a shot is sent exactly once, exactly as planned, or not at all.

The protocol is docs/protocol.md (``controller.protocol``); the driver is ``actuator.Actuator``,
configured by ``config.robot.DriverSettings`` (the ``driver`` section of config/robot.yaml).

    errors.py    ActuatorError and the specific failures under it
    link.py      one open port and its reader thread; LinkFault; FrameSink (where frames are recorded)
    deadline.py  Deadline: a point on the monotonic clock
    actuator.py  Actuator (handshake, commands, shots, reconnection) and ShotReport
"""
