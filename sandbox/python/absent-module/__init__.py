# Bound over a module of the interpreter's own directories that no package of the sandbox's runtime ships
# (Debian packages tkinter, lib2to3, ensurepip and most of distutils apart from the standard library), so
# importing it fails as it does where that package is not installed: src/sandbox/runtime-libraries.ts.
raise ModuleNotFoundError(f"No module named {__name__!r}", name=__name__)
