"""MoveIt Servo's interface for live jogging, on the trajectory node (docs/jogging.md).

Modules (imports point down this list): `settings` (the `moveit_servo.*` parameters),
`commands` (TwistStamped and JointJog messages as the jog engine's commands), `control`
(`JogControl`: the latest command, one jog at a time through the node's `Admission`, the
status), `interface` (`ServoInterface`: the topics and services, rclpy). The engine is
`kinematics/jog/`.
"""
