"""The reachable region solved in a child process (nodes/ik/region_process.py): the same grid
as solved in this process, the solve's error handed back, and a stopped child an answer-less
end rather than a wait."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from arm_kinematics.kinematics import PlanarArm
from arm_kinematics.kinematics.workspace import reachable_region
from arm_kinematics.nodes.ik.region_process import RegionProcess

ARM = PlanarArm((0.1, 0.08), [(-math.pi / 2, math.pi / 2)] * 2)


def test_the_child_answers_the_grid_this_process_would_have_solved():
    region = RegionProcess(reachable_region, ARM).result()
    here = reachable_region(ARM)
    assert (region.cell_size, region.origin) == (here.cell_size, here.origin)
    assert np.array_equal(region.reachable, here.reachable)
    assert np.array_equal(region.near_singular, here.near_singular)
    assert region.reachable.sum() > 1000


def test_an_error_of_the_solve_is_raised_by_result():
    # The solve fails in the child: reachable_region refuses a cell size of 0.
    with pytest.raises(ValueError, match="cell_size"):
        RegionProcess(functools.partial(reachable_region, cell_size=0.0), ARM).result()


def test_a_stopped_child_ends_the_wait_with_an_error():
    job = RegionProcess(reachable_region, ARM)
    job.stop()
    with pytest.raises(RuntimeError, match="ended without an answer"):
        job.result()
