"""The parameters of the change rule, in one place: the methodology page prints them, claims
carry them on hover, and tests pin them. Validated on construction."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Rule:
    """Every number the change rule depends on (the defaults are the published rule)."""

    confidence: float = 0.95  # two-sided level of every interval before false-discovery control
    fdr_q: float = 0.05  # Benjamini-Hochberg false-discovery rate across one page's claims
    delta_floor: float = 0.03  # a change smaller than 3% is never called a change
    # Between two single records the only spread is within one run (a record's rounds share a
    # server process), so run-to-run variation is unmeasured: such a change must pass 5% (asv's
    # minimum jump). An audit's three records with ±3% between runs and 3% here were all "changed".
    single_run_delta_floor: float = 0.05
    noise_factor: float = 2.0  # delta = max(delta_floor, noise_factor x within-segment noise)
    power: float = 0.8  # for the minimum detectable effect
    edivisive_min_records: int = 6  # shorter series are compared neighbour by neighbour only
    window_records: int = 50  # E-Divisive window (Otava's default)
    max_pvalue: float = 0.001  # t-test level a change point must reach in the merge step
    first_pass_pvalue: float = 0.01  # looser level of the split step ("weak" change points)
    min_segment_records: int = 2  # no segment of fewer records (so every segment has a spread)

    def __post_init__(self) -> None:
        for name in ("confidence", "fdr_q", "power", "max_pvalue", "first_pass_pvalue"):
            value = getattr(self, name)
            if not 0 < value < 1:
                raise ValueError(f"Rule.{name} must lie strictly between 0 and 1, not {value!r}")
        for name in ("delta_floor", "single_run_delta_floor"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"Rule.{name} must lie in [0, 1), not {getattr(self, name)!r}")
        if self.noise_factor < 0:
            raise ValueError(f"Rule.noise_factor must be >= 0, not {self.noise_factor!r}")
        if self.min_segment_records < 2:
            raise ValueError("Rule.min_segment_records must be >= 2: a segment of one record has no spread")
        if self.window_records < 2 * self.min_segment_records:
            raise ValueError("Rule.window_records must hold two minimum segments")
        if self.edivisive_min_records < 2 * self.min_segment_records:
            raise ValueError("Rule.edivisive_min_records must hold two minimum segments")
        if self.first_pass_pvalue < self.max_pvalue:
            raise ValueError("Rule.first_pass_pvalue must be >= Rule.max_pvalue (the split step is the looser one)")

    def parameters(self) -> dict[str, float | int]:
        """The rule as plain data (for hover text, JSON output and the methodology page)."""
        return asdict(self)


DEFAULT_RULE = Rule()
