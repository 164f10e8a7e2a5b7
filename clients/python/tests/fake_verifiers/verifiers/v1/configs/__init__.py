"""TEST FAKE of verifiers/v1/configs/ @ a60a606."""
