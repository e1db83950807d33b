"""The plain parts of `trajectory_node`, each testable without a ROS graph.

- `goals`: a goal's validation, its outcome, and admission and preemption (one goal moves the
  arm at a time; a newer valid goal stops the running one);
- `ik_batch`: the client adapter that solves a batch of points in one `solve_ik_batch` round
  trip, the `solve` callable of the core's planner;
- `planning`: a goal's plan (LINEAR through the core's `plan_polyline`, JOINT through
  `joint_setpoints`), or the outcome that ends it before anything moves;
- `streaming`: the latest joint_states, and the setpoints paced at the command rate with the
  hardware watchdog, a stop decelerating along the path;
- `markers`: the RViz markers of a plan and of an abort, as plain messages.

Imports point one way: these parts use the kinematics core and message types; the node
(`nodes/trajectory_node.py`) wires them to rclpy.
"""
