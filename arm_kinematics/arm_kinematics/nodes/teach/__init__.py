"""Named poses and taught sequences on the trajectory node (docs/sequences.md).

Modules (imports point down this list): `settings` (the parameters and where the files are
kept), `named` (named poses looked up, checked and turned into moves), `sequence` (a program
resolved for this arm, then planned whole: `resolve_sequence`, `plan_sequence`),
`gripper_step` (a gripper step's GripperCommand goal), `runner` (`SequenceRunner`: plan, then
step after step), `services` (`named_poses/*`, `sequences/*`), `sequence_action` (the
`run_sequence` action), `interface` (`TeachInterface`: what the node builds). The files and
programs themselves are read by `arm_kinematics.teach` (no ROS).
"""
