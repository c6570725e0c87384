"""A module beside the fixture tracks, imported by applogs/track.py like elastic/logs imports `shared`."""


def scheduler_name():
    return "fixed-test-scheduler"
