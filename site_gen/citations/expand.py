"""The pre-processing pass: an article's body with every citation replaced by its rendering,
before MkDocs sees the Markdown. All problems of all citations are reported at once."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchledger.errors import Problem, ProblemsError
from site_gen import raw_html
from site_gen.citations.base import CitationEnv, CitationProblem
from site_gen.citations.registry import KINDS
from site_gen.citations.syntax import Call, fenced_spans, scan
from site_gen.prose import CITATION_WORD, prose_problems, rendered_problems

if TYPE_CHECKING:
    from benchledger.records.store import SealedRecord
    from site_gen.articles import Article
    from site_gen.context import SiteContext


@dataclass(frozen=True)
class Expanded:
    """An article's Markdown after expansion, and what its citations used."""

    markdown: str
    env: CitationEnv
    calls: tuple[Call, ...]


def expand(article: "Article", sealed: list["SealedRecord"], site: "SiteContext | None" = None, page_path: str = "") -> Expanded:
    """Resolve the article's records and expand its citations; ProblemsError on any problem.
    `page_path` (the article's path in the generated docs) makes block links relative."""
    env = CitationEnv(article, article.resolve_records(sealed), site, page_path)
    parts, problems = scan(article.source, article.body, article.body_line)
    # the author's own Markdown around the citations: no raw HTML, script or outside loads
    problems += prose_problems(article.source, article.body, article.body_line,
                               [(p.start, p.end) for p in parts if isinstance(p, Call)], fenced_spans(article.body))
    out: list[str] = []
    prose: list[str] = []  # the author's Markdown, each citation an inert word (prose.rendered_problems)
    calls: list[Call] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            prose.append(part)
            continue
        calls.append(part)
        word = CITATION_WORD.format(len(calls))
        try:
            rendered = render_call(env, part)
            out.append(rendered)
            prose.append(f"\n{word}\n" if rendered.startswith("\n") else word)
        except CitationProblem as err:
            problems.append(Problem(article.source, "", f"{part.name}(): {err}", part.line))
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise ProblemsError(problems, f"{len(problems)} problem(s) in {article.source}")
    markdown = env.finish("".join(out))
    # the source passed: now what the page would hold, Markdown read as MkDocs reads it
    problems = rendered_problems(article.source, article.body, article.body_line, "".join(prose), raw_html.ids(markdown))
    if problems:
        raise ProblemsError(problems, f"{len(problems)} problem(s) in {article.source}")
    return Expanded(markdown, env, tuple(calls))


def render_call(env: CitationEnv, call: Call) -> str:
    """One call's rendering; CitationProblem for an unknown kind, bad arguments or bad data."""
    kind = KINDS.get(call.name)
    if kind is None:
        raise CitationProblem(f"unknown citation kind; known: {', '.join(sorted(KINDS))}")
    signature = inspect.signature(kind.render)
    try:
        signature.bind(env, *call.args, **call.kwargs)
    except TypeError as err:
        # Python names the first missing argument only: name them all, so one edit fixes the call
        params = list(signature.parameters.values())[1 + len(call.args):]
        missing = [p.name for p in params if p.default is p.empty and p.name not in call.kwargs
                   and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        reason = f"missing required arguments: {', '.join(missing)}" if len(missing) > 1 else str(err)
        raise CitationProblem(f"{reason} (see the authoring guide, posts/authoring.html in your built site)") from None
    if kind.block and not call.alone:
        raise CitationProblem("a block citation must stand alone on its own lines")
    rendered = kind.render(env, *call.args, **call.kwargs)
    # A block gets blank lines around it so Markdown never merges it into a paragraph.
    return f"\n{rendered}\n" if kind.block else rendered
