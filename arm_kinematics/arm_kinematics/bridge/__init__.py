"""The ROS-graph-free half of `web_bridge`: the rosbridge v2 protocol, message <-> JSON, limits.

Nothing here creates a node or talks to the graph; `nodes/web_bridge.py` is the rclpy adapter.
Message classes are used only as data (their fields and rosidl types), so all of it is tested
without a ROS graph.
"""
