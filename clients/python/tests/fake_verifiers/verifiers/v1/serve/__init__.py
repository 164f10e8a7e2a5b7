"""TEST FAKE of verifiers/v1/serve/ @ a60a606."""

from .server import EnvServer

__all__ = ["EnvServer"]
