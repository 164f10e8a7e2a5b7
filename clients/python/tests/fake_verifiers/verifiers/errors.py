"""TEST FAKE of verifiers/errors.py @ v0.1.12 (commit 1979705; the same classes since v0.1.10 ccef044):
the error hierarchy a v0 environment puts in ``state["error"]``. ``InfraError`` is what
``maybe_retry`` retries (with ``InvalidModelResponseError``) and what an environment sets for a broken
sandbox."""


class Error(Exception):
    """Base class for all errors."""


class ModelError(Error):
    pass


class InvalidModelResponseError(ModelError):
    pass


class EmptyModelResponseError(InvalidModelResponseError):
    pass


class OverlongPromptError(Error):
    pass


class InfraError(Error):
    """Used to catch errors while interacting with infrastructure."""


class TunnelError(InfraError):
    pass


class SandboxError(InfraError):
    pass
