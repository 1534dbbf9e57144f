"""Cases of records and how they compare: one small table per record kind, in an explicit
registry (`registry.KINDS`), read by one generic reader.

The contract (what a new record kind provides: one module with one `CaseKind`, added to
`registry.KINDS`):

- A **case** is the unit that is compared: an entry of the array at `cases_at` (LLM records:
  each completed entry of `/cases`), or the whole record when `cases_at` is None (graph replay).
  A case has **points** (the array at `points_at` under the case: context lengths, token
  lengths), matched across cases on the point fields; a case without `points_at` is one point.
- Every **field** of a case's key has a role:
  - *identity*: must agree for two cases to be compared at all (model file, quantisation,
    request shape, settings that change what is computed; point fields are always identity);
  - *axis*: may differ, one at a time (GPU, CPU, runtime release, driver, torch version, a
    placement or a setting). Cases that agree on identity and differ in exactly one axis field
    form a comparison along it; two or more differing axis fields make the pair *confounded*;
  - *context*: shown beside the numbers, never required to agree (kernel, OS, fan profile ...).
  A field names where its value is (`pointers`, the first present wins, relative to its
  `scope`: record, case or point); `ordered=True` marks an axis whose values have an order
  over time (a release, a version, a date), which makes a sequence of cases along it a series.
- Every **metric** names its value (or, derived, its formula and inputs), its unit, which way is
  better, and, where the record has them, the sample count and the range (minimum, maximum) of
  the values it summarises: the rule for calling a difference (`evidence.py`) needs all three.
  `headline` lists the metrics charted on comparison pages.

`CaseKind.cases(data, sha256, path)` reads a schema-valid record into `Case`s: field values with
the absolute JSON pointers they came from, points with `Measure`s (value, pointer, count,
range, or formula and input pointers). Nothing here renders; site_gen and the CLI build on it.
The tables are documented on the site's methodology page, from these very objects.
"""
