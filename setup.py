"""The parts of the build configuration pyproject.toml cannot say:

- the repository's top-level templates/, docs/ and examples/ stay where they are, and are mapped
  into the package as `site_gen.templates`, `site_gen.guides` and `benchledger.examples`
  (package data of the wheel, read through importlib.resources);
- the no-duplicate-key proof compiled from C (`benchledger/records/_memberproof.c`), optional:
  where no C compiler is found the install goes on and records are read with the same proof in
  Python (jsonread.py), about 0.07 ms slower for a 145 KB record;
- the consistency checks compiled by Cython (`benchledger.records._checks_compiled`), optional
  in the same way: the source of checks.py itself, with the SHA-256 of that source appended, so
  that checks.py uses the compiled twin only while it was built from exactly the source beside it
  (an edit not yet built runs as Python). About 0.08 ms a record quicker (bench/HISTORY.md);
- the statistics proof compiled from C (`benchledger/records/_statsproof.c`), optional: where it
  proves five of those checks find nothing in a record they are not run;
- the host sampler's ticks read in C without the GIL (`collector/telemetry/_ticks.c`), optional
  too: without it they are read in Python, at about twice the CPU.

Everything else is in pyproject.toml."""

import hashlib
from pathlib import Path

from setuptools import Extension, find_packages, setup

RESOURCE_PACKAGES = {"site_gen.templates": "templates", "site_gen.guides": "docs", "benchledger.examples": "examples"}
CHECKS_SOURCE = Path("benchledger/records/checks.py")
CHECKS_TWIN = Path("build/checks-twin/_checks_compiled.py")


def checks_twin() -> list[Extension]:
    """The compiled twin of checks.py, or nothing where Cython is not installed (the build
    requires it; an install without build isolation may lack it)."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("Cython is not installed: the consistency checks will run as Python")
        return []
    source = CHECKS_SOURCE.read_bytes()
    twin = source + b'\nCOMPILED_FROM_SHA256 = "' + hashlib.sha256(source).hexdigest().encode() + b'"\n'
    if not CHECKS_TWIN.is_file() or CHECKS_TWIN.read_bytes() != twin:  # unchanged: Cython keeps its C file
        CHECKS_TWIN.parent.mkdir(parents=True, exist_ok=True)
        CHECKS_TWIN.write_bytes(twin)
    # annotation_typing off: the annotations are documentation, and a check is handed a dict
    # subclass where `dict` is written
    # -g0: without debugging symbols the module is 0.7 MB, not 5 MB
    extensions = cythonize([Extension("benchledger.records._checks_compiled", [str(CHECKS_TWIN)], extra_compile_args=["-g0"])],
                           compiler_directives={"language_level": 3, "annotation_typing": False}, quiet=True)
    for extension in extensions:
        extension.optional = True  # cythonize makes Extensions of its own, without it
    return extensions


setup(
    packages=find_packages(include=["benchledger*", "collector*", "site_gen*"]) + list(RESOURCE_PACKAGES),
    package_dir=RESOURCE_PACKAGES,
    ext_modules=[Extension("benchledger.records._memberproof", ["benchledger/records/_memberproof.c"], optional=True),
                 Extension("benchledger.records._statsproof", ["benchledger/records/_statsproof.c"], optional=True),
                 *checks_twin(),
                 Extension("collector.telemetry._ticks", ["collector/telemetry/_ticks.c"], optional=True)],
)
