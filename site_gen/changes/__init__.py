"""Change detection over series of records: the statistics, with no knowledge of pages or
record schemas. A series is a sequence of `Observation`s (one per record, in axis order);
`detect` finds where it changes (E-Divisive means for long series, neighbour pairs for short
ones) and compares the segments on either side; `assess` turns every comparison of one page
into a claim with a verdict, controlling the false-discovery rate across the page."""
