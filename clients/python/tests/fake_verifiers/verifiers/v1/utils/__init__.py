"""TEST FAKE of verifiers/v1/utils/ @ a60a606."""
