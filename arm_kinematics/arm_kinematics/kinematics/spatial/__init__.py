"""The spatial solve: a base yaw under a vertical chain of 2 or 3 pitch joints, an optional wrist
roll; the vertical chain solved by the planar core."""
