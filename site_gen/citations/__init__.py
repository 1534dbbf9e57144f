"""Citations: prose in authored articles that quotes sealed records instead of copying numbers.

`{{ kind(args) }}` calls are expanded by `expand()` before MkDocs runs; see docs/authoring.md
for the syntax and `registry.KINDS` for the kinds."""
