"""TEST FAKE of verifiers/v1/tasksets/ @ a60a606: the built-in tasksets, which win over an installed
module of the same name. None here (upstream has none named minedit_repair)."""
