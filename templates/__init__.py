"""Marks templates/ as the package `site_gen.templates`, into which the build configuration
(setup.py) maps this folder, so a wheel ships it and `site_gen.resources` reads it through
importlib.resources. Nothing imports code from here."""
