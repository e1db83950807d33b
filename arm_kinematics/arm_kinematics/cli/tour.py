"""A short printed tour of the kinematics core on the configured arm (console: kinematics_tour):
a planar arm's (`planar_tour.py`) or, for `layout: spatial`, a spatial arm's (`spatial_tour.py`).
No ROS: it reads the arm's parameters file directly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from arm_kinematics.cli import planar_tour, spatial_tour
from arm_kinematics.config import ArmConfig, ConfigError


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="kinematics_tour", description="Print a short tour of the arm's kinematics."
    )
    parser.add_argument(
        "--config", default=None, help="arm parameters file (default: the package's arm.yaml)"
    )
    args = parser.parse_args(argv)
    try:
        config = ArmConfig.from_file(args.config)
    except ConfigError as error:
        print(f"kinematics_tour: {error}", file=sys.stderr)
        sys.exit(2)
    kind = spatial_tour if config.layout == "spatial" else planar_tour
    lines = kind.tour(config)
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:  # piped into `head`: stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    main()
