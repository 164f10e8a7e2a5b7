#!/usr/bin/env python3
"""What the oracle's standard library holds, for tests/differential/normalize-stdlib.test.ts to check that
it compared all of it. Run as `python3 -I -S stdlib_inventory.py`; writes one JSON object:

  {"stdlib": the directory sysconfig names,
   "files": every .py file under it (site-packages excluded), sorted,
   "modules": the source file of every top-level stdlib module (sys.stdlib_module_names) that the
              import system finds as Python source, relative to `stdlib` (directories resolved, so a
              symlinked library directory still matches), sorted}

`modules` comes from the import system (sys.path, with -S only the interpreter's own library), not from
walking `stdlib`: it is the floor that catches a walk of the wrong or an almost empty directory.
"""

import importlib.machinery
import json
import os
import sys
import sysconfig

stdlib = sysconfig.get_paths()["stdlib"]

files = []
for directory, subdirectories, names in os.walk(stdlib):
    subdirectories[:] = [d for d in subdirectories if d != "site-packages"]
    files.extend(os.path.join(directory, name) for name in names if name.endswith(".py"))

real_stdlib = os.path.realpath(stdlib)
modules = []
for name in sys.stdlib_module_names:
    # PathFinder, not importlib.util.find_spec: it finds the source of frozen modules (os, codecs, ...)
    # too, and it imports nothing.
    spec = importlib.machinery.PathFinder.find_spec(name)
    if spec is not None and spec.origin is not None and spec.origin.endswith(".py"):
        folder, filename = os.path.split(spec.origin)
        modules.append(os.path.relpath(os.path.join(os.path.realpath(folder), filename), real_stdlib))

json.dump({"stdlib": stdlib, "files": sorted(files), "modules": sorted(modules)}, sys.stdout)
