"""Targets in the arm's base frame or in the frame it is mounted in (numpy + transforms3d, no ROS).

An arm with a mount (`mount.parent_frame`, `mount.xyz_m`, `mount.rpy_deg` in the params file)
accepts targets stamped in either frame. The mount is fixed, so no TF listener is needed: a point
p_parent in the parent frame is p_base = R^T (p_parent - t) in the base frame, where (R, t) is the
pose of the base in the parent (R from roll, pitch, yaw about the parent's fixed x, y, z axes,
the URDF origin convention). Orientations turn the same way: q_base = R^T q_parent.

The plane check, the heading and the IK then all happen in the base frame, where the arm moves
in the plane z = plane_z_m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from transforms3d.euler import euler2mat
from transforms3d.quaternions import mat2quat, quat2mat

from arm_kinematics.config import ArmConfig, MountConfig


class FrameError(ValueError):
    """A target stamped in a frame the arm does not know; the message lists the frames it does."""


@dataclass(frozen=True)
class Mount:
    """The fixed pose of the arm's base frame in its parent frame.

    >>> import math
    >>> mount = Mount.from_pose("world", xyz=(1.0, 2.0, 0.5), rpy=(0.0, 0.0, math.pi / 2))
    >>> [round(v, 12) + 0.0 for v in mount.point_to_base((1.0, 3.0, 0.5))]
    [1.0, 0.0, 0.0]
    >>> [round(v, 12) + 0.0 for v in mount.point_to_parent((1.0, 0.0, 0.0))]
    [1.0, 3.0, 0.5]
    """

    parent_frame: str
    rotation: np.ndarray  # 3x3, base axes in the parent frame
    translation: np.ndarray  # (3,), base origin in the parent frame, m

    @classmethod
    def from_pose(cls, parent_frame: str, xyz: Sequence[float], rpy: Sequence[float]) -> Mount:
        """The mount at `xyz` (m) with roll, pitch, yaw `rpy` (rad, fixed axes x, y, z)."""
        rotation = euler2mat(*rpy, axes="sxyz")
        return cls(parent_frame, rotation, np.asarray(xyz, dtype=float))

    @classmethod
    def from_config(cls, mount: MountConfig) -> Mount:
        return cls.from_pose(mount.parent_frame, mount.xyz, mount.rpy)

    @property
    def matrix(self) -> np.ndarray:
        """The 4x4 homogeneous transform parent <- base."""
        transform = np.eye(4)
        transform[:3, :3] = self.rotation
        transform[:3, 3] = self.translation
        return transform

    def point_to_base(self, point: Sequence[float]) -> tuple[float, float, float]:
        """A point (x, y, z, m) given in the parent frame, expressed in the base frame."""
        x, y, z = self.rotation.T @ (np.asarray(point, dtype=float) - self.translation)
        return (float(x), float(y), float(z))

    def point_to_parent(self, point: Sequence[float]) -> tuple[float, float, float]:
        """A point (x, y, z, m) given in the base frame, expressed in the parent frame."""
        x, y, z = self.rotation @ np.asarray(point, dtype=float) + self.translation
        return (float(x), float(y), float(z))

    def points_to_base(self, points: np.ndarray) -> np.ndarray:
        """Points (N x 3, m) given in the parent frame, expressed in the base frame (N x 3).

        >>> mount = Mount.from_pose("world", (1.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        >>> mount.points_to_base(np.array([[1.5, 0.0, 0.0], [1.0, 0.2, 0.0]])).round(12).tolist()
        [[0.5, 0.0, 0.0], [0.0, 0.2, 0.0]]
        """
        return (np.asarray(points, dtype=float) - self.translation) @ self.rotation

    def headings_to_base(self, headings: np.ndarray, tolerance: float = 1e-9) -> np.ndarray:
        """Tool headings (rad) about the parent's z, as headings about the base's z (rad).

        Only a mount whose base z is the parent's +z turns a rotation about the parent's z into
        one about the base's z (it then subtracts the mount's yaw); ValueError otherwise.

        >>> import math
        >>> mount = Mount.from_pose("world", (0.0, 0.0, 0.0), (0.0, 0.0, math.pi / 2))
        >>> mount.headings_to_base(np.array([math.pi / 2, 0.0])).round(12).tolist()
        [0.0, -1.570796326795]
        """
        if abs(self.rotation[2, 2] - 1.0) > tolerance:
            raise ValueError(
                f"a heading about the z of '{self.parent_frame}' is no heading of the arm: its "
                "plane is tilted in that frame (give headings in the base frame)"
            )
        yaw = math.atan2(self.rotation[1, 0], self.rotation[0, 0])
        turned = np.asarray(headings, dtype=float) - yaw
        return np.arctan2(np.sin(turned), np.cos(turned))

    def quaternion_to_base(self, xyzw: Sequence[float]) -> tuple[float, float, float, float]:
        """An orientation (quaternion x, y, z, w; unit length) given in the parent frame,
        expressed in the base frame (x, y, z, w)."""
        x, y, z, w = xyzw
        w2, x2, y2, z2 = mat2quat(self.rotation.T @ quat2mat((w, x, y, z)))
        return (float(x2), float(y2), float(z2), float(w2))

    def plane_in_parent(self, plane_z: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The arm's plane (z = plane_z in the base frame) in the parent frame: a point on it
        (the base axis at plane_z, m) and its unit normal (the base's +z)."""
        point = self.point_to_parent((0.0, 0.0, plane_z))
        normal = tuple(float(v) for v in self.rotation[:, 2])
        return point, normal


@dataclass(frozen=True)
class BaseTarget:
    """A target expressed in the base frame: position (m) and orientation (x, y, z, w)."""

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    given_in: str  # the frame the caller stamped it in (the base frame for an empty frame_id)


class TargetFrames:
    """The frames a target may be stamped in: the arm's base frame (empty = the base frame) and,
    with a mount, the mount's parent frame."""

    def __init__(self, base_frame: str, mount: Mount | None = None) -> None:
        self.base_frame = base_frame
        self.mount = mount

    @classmethod
    def from_config(cls, config: ArmConfig) -> TargetFrames:
        mount = Mount.from_config(config.mount) if config.mount is not None else None
        return cls(config.frame(config.base_frame), mount)

    @property
    def accepted(self) -> tuple[str, ...]:
        """The frame names a target may carry."""
        if self.mount is None:
            return (self.base_frame,)
        return (self.base_frame, self.mount.parent_frame)

    def to_base(
        self,
        frame_id: str,
        position: Sequence[float],
        orientation: Sequence[float] = (0.0, 0.0, 0.0, 1.0),
    ) -> BaseTarget:
        """The target in the base frame; FrameError for a frame that is not accepted.

        >>> frames = TargetFrames("base_link", Mount.from_pose("world", (0, 0, 1), (0, 0, 0)))
        >>> frames.to_base("world", (0.1, 0.2, 1.0)).position
        (0.1, 0.2, 0.0)
        >>> try:
        ...     frames.to_base("camera", (0.1, 0.2, 1.0))
        ... except FrameError as error:
        ...     print(error)
        frame 'camera' is neither the base frame 'base_link' nor the mount's parent frame 'world'
        """
        position = tuple(float(v) for v in position)
        orientation = tuple(float(v) for v in orientation)
        if frame_id in ("", self.base_frame):
            return BaseTarget(position, orientation, self.base_frame)  # type: ignore[arg-type]
        if self.mount is not None and frame_id == self.mount.parent_frame:
            return BaseTarget(
                self.mount.point_to_base(position),
                self.mount.quaternion_to_base(orientation),
                frame_id,
            )
        raise FrameError(f"frame '{frame_id}' is {self.expected_words()}")

    def expected_words(self) -> str:
        """What a target's frame must be, in words (for refusals)."""
        if self.mount is None:
            return f"not the base frame '{self.base_frame}' (empty means the base frame)"
        return (
            f"neither the base frame '{self.base_frame}' nor the mount's parent frame "
            f"'{self.mount.parent_frame}'"
        )

    def plane_words(self, plane_z: float) -> str:
        """Where the arm's plane is, for an OFF_PLANE refusal, in the parent frame with a mount."""
        if self.mount is None:
            return f"z = {plane_z:g} m in '{self.base_frame}'"
        point, normal = self.mount.plane_in_parent(plane_z)
        return (
            f"z = {plane_z:g} m in '{self.base_frame}', which in '{self.mount.parent_frame}' is "
            f"the plane through {_vector_words(point)} m with normal {_vector_words(normal)}"
        )


def _vector_words(vector: Sequence[float]) -> str:
    """(x, y, z) to 4 significant digits, rounding errors of the rotation shown as 0."""
    return "(" + ", ".join(f"{round(v, 9) + 0.0:.4g}" for v in vector) + ")"
