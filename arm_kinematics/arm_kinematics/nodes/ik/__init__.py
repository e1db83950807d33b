"""The plain parts of `ik_node`, each testable without a ROS graph (message types only).

- `requests`: what every request is answered with (`IkSetup`), the branch and seed checks, and
  the one place where a checked target becomes a call of the core (`PlanarLayout`; a spatial
  arm's layout joins there);
- `solve`: a SolveIK request -> its answer;
- `batch`: a SolveIKBatch request -> its answer (the bounded size, per-target statuses);
- `fk`: a ComputeFK request -> its answer (the URDF's frames as TF has them);
- `markers`: the RViz markers of `ik_markers` (the ring, the region, the last request).

Every check refuses with a `nodes.refusals.Refusal`; the node (`nodes/ik_node.py`) turns it
into the answer's status in one place. Imports point one way: these parts use the core, the
config, `nodes/messages.py` and `nodes/targets.py`; the node wires them to rclpy.
"""
