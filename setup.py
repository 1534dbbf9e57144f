"""The parts of the build configuration pyproject.toml cannot say:

- the repository's top-level templates/, docs/ and examples/ stay where they are, and are mapped
  into the package as `site_gen.templates`, `site_gen.guides` and `benchledger.examples`
  (package data of the wheel, read through importlib.resources);
- the no-duplicate-key proof compiled from C (`benchledger/records/_memberproof.c`), optional:
  where no C compiler is found the install goes on and records are read with the same proof in
  Python (jsonread.py), about 0.07 ms slower for a 145 KB record.

Everything else is in pyproject.toml."""

from setuptools import Extension, find_packages, setup

RESOURCE_PACKAGES = {"site_gen.templates": "templates", "site_gen.guides": "docs", "benchledger.examples": "examples"}

setup(
    packages=find_packages(include=["benchledger*", "collector*", "site_gen*"]) + list(RESOURCE_PACKAGES),
    package_dir=RESOURCE_PACKAGES,
    ext_modules=[Extension("benchledger.records._memberproof", ["benchledger/records/_memberproof.c"], optional=True)],
)
