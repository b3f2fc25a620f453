"""The controller service: the game loop that closes camera -> vision -> planner -> robot -> world.

    states.py    the states, the transitions allowed between them, the machine that logs them
    service.py   Service: the loop over a Camera, the Actuator and a Clock (and the dashboard's
                 ServiceControl, control.py)
    watch.py     the frame-reading states: rest, captures, the frames of a shot
    observe.py   frames seen by vision; a capture's consistency with the game
    gate.py      pause, resume, e-stop, stop: where the loop may stop and how it comes back
    gamelog.py   the game log's records (docs/recording.md) and the printed line of a shot
    hub.py       what the dashboard reads: status, latest frame, plan, log, live events
    opponent.py  the simulated opponent, a person, and who puts balls on the table
    setup.py     a whole game assembled from the configuration (backend, planners, recorder)
    bench.py     ``cuerobot bench controller``
"""
