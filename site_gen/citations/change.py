"""`change`: a change claim of the site's history, cited in prose and re-checked on every build.

    {{ change("b11151", "decode_tokens_per_s", point={"context_tokens": 2048}) }}

names the record where the change starts (its local name in the front matter), the metric (by
its name in the record kind's case table), the point when the kind has several (context length,
token length) and, for records with several cases, the `case` (its label, e.g. its id). It
renders the claim exactly as the series page does (the change, its interval, its verdict, and
every input, statistic and parameter on hover) with a link to the series page. `verdict`
(default "changed") is what the article claims: when new records arrive and the history no
longer says so, the build fails with what the history says now, so the article cannot keep a
claim its data no longer supports (update the prose and the verdict, or cite another change)."""

from __future__ import annotations

import json
from typing import Any

from site_gen.changes.claims import VERDICTS
from site_gen.citations.base import CitationEnv, CitationKind, CitationProblem
from site_gen.claim import claim_html, claim_text
from site_gen.history import Finding, SeriesReport, series_path
from site_gen.templating import url


class ChangeClaim(CitationKind):
    name = "change"

    def render(self, env: CitationEnv, record: str, metric: str, point: dict | None = None, case: str | None = None,
               verdict: str = "changed") -> str:
        if verdict not in VERDICTS:
            raise CitationProblem(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
        if point is not None and not isinstance(point, dict):
            raise CitationProblem(f"point must be a dict such as {{\"context_tokens\": 2048}}, not {point!r}")
        if case is not None and not isinstance(case, str):
            raise CitationProblem(f"case must be a case's label (text), not {case!r}")
        if env.site is None:
            raise CitationProblem("change() needs the site's history (it is only expanded in a site build)")
        sealed = env.record(record)
        wanted = {str(k): _key_text(v) for k, v in (point or {}).items()}
        candidates: list[tuple[SeriesReport, Finding]] = []  # claims starting at this record (any verdict)
        for report in env.site.history:
            for finding in report.findings:
                at = finding.first_after
                if at.record_sha256 != sealed.entry.sha256 or finding.track.metric.name != metric:
                    continue
                if (wanted and dict(finding.track.point) != wanted) or (case is not None and at.label != case):
                    continue
                candidates.append((report, finding))
        points = sorted({tuple(f.track.point) for _, f in candidates})
        if len(points) > 1:
            raise CitationProblem(f"{metric} has claims at several points starting at record {record}; name one with "
                                  f"point=..., one of {[dict(p) for p in points]}")
        cases = sorted({f.first_after.label for _, f in candidates})
        if len(cases) > 1:
            raise CitationProblem(f"several cases of record {record} have a claim on {metric}; name one with case=..., "
                                  f"one of {cases}")
        holding = [(r, f) for r, f in candidates if f.claim.verdict == verdict]
        if not holding:
            now = "; ".join(f"{f.track.label} from {f.track.series.shown_of(f.first_after)}: {claim_text(f)}"
                            for _, f in candidates)
            raise CitationProblem(
                f"the claim no longer holds: the history has no {verdict!r} claim on {metric} starting at record {record} "
                f"({sealed.entry.sha256[:12]}…, {sealed.entry.path}); "
                + (f"it now says: {now}. " if now else "no claim starts at that record now. ")
                + "Update the article (its prose and this citation's verdict) or cite another change")
        report, finding = holding[0]
        href = f"{url(env.page_path, series_path(report.series))}#track-{report.tracks.index(finding.track)}"
        return f'{claim_html(finding)} <a class="bl-claim-link" href="{href}">(series)</a>'


def _key_text(value: Any) -> str:
    """A point value as the case tables key it (text as is, numbers as JSON)."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
