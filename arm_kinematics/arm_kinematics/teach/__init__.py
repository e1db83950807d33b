"""Named poses and taught sequences without ROS (docs/sequences.md).

- `names`: the one rule of a pose's or a sequence's name, and `TeachError`, how this package
  says no;
- `poses`: a named pose (the arm's joints under a name, and where they put the tool), the
  built-in `home`, the check against the running config (joint names, limits, the workspace
  envelope, the geometry), and `PoseFile`, the YAML file they are kept in (ruamel.yaml's round
  trip: a user's comments stay; written atomically);
- `program`: a sequence program's text (YAML, or JSON) read and checked into steps: moves to a
  named or typed pose (LINEAR or JOINT, a speed each), gripper steps, waits, a repeat count;
- `store`: the saved sequences, one file per name in a directory.

It imports the kinematics core and `config`; the trajectory node (`nodes/teach/`) plans and
runs what it reads.
"""
