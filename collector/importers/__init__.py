"""Importers: results measured by other tools (llama-bench, ...) sealed as records. One module
per source tool behind `base.Importer`, listed in `registry.IMPORTERS`."""
