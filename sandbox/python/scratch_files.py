"""Writing a run's files into the scratch (/tmp), for forkserver.py and docker-boot.py alike: each runs as
one `python3 -c` source and so cannot import this file; src/sandbox/python-source.ts puts it before them."""

import os


def write_scratch_file(path, data):
    """Writes `data` to /tmp/`path`, making its directories. The server checks paths before sending them;
    a path that could leave the scratch (absolute, empty or dot parts) is refused here as well."""
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError("bad file path " + repr(path))
    if len(parts) > 1:
        os.makedirs("/tmp/" + "/".join(parts[:-1]), exist_ok=True)
    # Straight from `data` to the file: a buffered file object would copy a small file into its buffer,
    # freed but not cleared, and a fork server's later runs (forked from it) would find it in their memory.
    fd = os.open("/tmp/" + path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
