"""The configuration: the YAML files in this directory and the one package that reads them.

One module per file, each turning its file into typed values and naming the file, key and
expected form in every error (``config.reader.Section``):

    config.table    table.yaml    -> TableSettings (the built Table, PhysicsParams)
    config.planner  planner.yaml  -> PlannerSettings (move generation, search, difficulty grid)
    config.robot    robot.yaml    -> RobotSettings (declared limits, driver, error model)
    config.sim      sim.yaml      -> SimSettings (the simulated robot)
    config.camera   camera.yaml   -> CameraSettings (lens, pose, registration landmarks)
    config.service  service.yaml  -> ServiceSettings (backend, players, camera timing, dashboard)
    config.settings load_settings(): all of them, checked against each other

A package imports only the modules of the files it reads (the planner: table and planner;
vision: camera); ``load_settings`` is for the controller and the tools above it. The directory
the files are read from is ``config.reader.config_dir()``.
"""
