"""Planning: tool paths, how a planner asks for IK, line and polyline plans, joint moves and
timed joint paths from other planners."""
