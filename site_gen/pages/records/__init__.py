"""Article renderers, one module per record schema (see registry.py)."""
