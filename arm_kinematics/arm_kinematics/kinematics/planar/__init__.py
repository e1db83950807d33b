"""The planar solve: the chain model, its closed forms, branch rules and messages, and
`PlanarArm.solve` (the checks in their order of precedence)."""
