"""Marks docs/ as the package `site_gen.guides` (its home, methodology, auditing and authoring
pages; docs/articles are this project's own articles and are not packaged), mapped by the
build configuration (setup.py) and read through `site_gen.resources`."""
