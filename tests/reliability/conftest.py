"""The fault battery's fixture (``bench``): see ``battery.py``."""

from tests.reliability.battery import bench

__all__ = ["bench"]
