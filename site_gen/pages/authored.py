"""Authored articles on the site: one page per article under docs/articles/ (citations
expanded from the sealed bytes), an index newest first, a page per tag, and an Atom feed."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from markupsafe import Markup

from benchledger.errors import ProblemsError
from site_gen.articles import Article, load_articles
from site_gen.citations.expand import expand
from site_gen.claim import change_entries
from site_gen.feed import FEED, article_url, atom_feed
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.quantity import counted
from site_gen.resources import guide_text
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import SiteContext

PREFIX = "posts"
INDEX = f"{PREFIX}/index.md"
GUIDE = f"{PREFIX}/authoring.md"
GUIDE_SOURCE = "authoring.md"  # the packaged syntax guide, published as written


def article_path(article: Article) -> str:
    return f"{PREFIX}/{article.slug}.md"


def tag_path(tag: str) -> str:
    return f"{PREFIX}/tags/{tag}.md"


class AuthoredArticles(PageKind):
    """Every authored article, its index, tag pages and feed."""

    name = "authored"

    def __init__(self, articles_dir: Path | None = None):
        self.articles_dir = articles_dir

    def directory(self, site: "SiteContext") -> Path | None:
        """Where the article sources are: this kind's, else the build's option (the project's
        articles folder); None: no authored articles."""
        return self.articles_dir or site.options.articles_dir

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        directory = self.directory(site)
        articles = load_articles(directory, display_root=directory.parent.parent) if directory is not None else []
        # The index is built even with no articles: the navigation links to it.
        pages, problems = [], []
        for article in articles:
            try:
                pages.append(self.article_page(site, article))
            except ProblemsError as err:  # report every article's problems, not the first's
                problems.extend(err.problems)
        if problems:
            raise ProblemsError(problems, f"{len(problems)} problem(s) in articles")
        changes = change_entries(site.history, {e.sha256: e.sealed_at for e in site.entries})
        feed = atom_feed(articles, feed_path=FEED, page_paths={a.slug: article_path(a) for a in articles},
                         site_name=site.options.site_name, site_url=site.options.site_url, extra=changes)
        tags = sorted({t for a in articles for t in a.tags})
        # titled as the navigation names it: "Articles" is the home page's (the records' articles)
        pages.append(self.listing(site, INDEX, "Write-ups", articles, tags, show_tags=True, assets={FEED: feed},
                                  intro="Articles written around sealed records. Every number in them is cited from a record's exact bytes, newest first."))
        for tag in tags:
            tagged = [a for a in articles if tag in a.tags]
            pages.append(self.listing(site, tag_path(tag), f"Write-ups tagged “{tag}”", tagged, tags, show_tags=False,
                                      intro=f"{counted(len(tagged), 'article')} tagged {tag}. [All write-ups]({posixpath.relpath(INDEX, posixpath.dirname(tag_path(tag)))})"))
        pages.append(Page(GUIDE, "Writing an article that cites sealed records", guide_text(GUIDE_SOURCE)))
        return pages

    def article_page(self, site: "SiteContext", article: Article) -> Page:
        """One article: citations expanded, notes, records cited, and how to cite it."""
        path = article_path(article)
        if not article.records:
            site.notes.append(f"{article.source}: cites no sealed record yet; seal one (`benchledger seal`) and name it "
                              "under `records:` in the front matter")
        expanded = expand(article, site.records, site, page_path=path)
        cited = []
        for ref in article.records:
            view = site.view(expanded.env.records[ref.name].entry.sha256)
            cited.append((ref.name, view, posixpath.relpath(view.page_path, posixpath.dirname(path))))
        markdown = site.render(
            "authored/article.md.j2",
            article=article,
            body=Markup(expanded.markdown),
            notes=list(expanded.env.notes.values()),
            common=[(name, lims) for name, lims in expanded.env.common.items() if lims],
            short={ref.name: expanded.env.records[ref.name].entry.sha256[:12] for ref in article.records},
            cited=cited,
            page_path=path,
            url=article_url(site.options.site_url, path),
            tag_urls={t: url(path, tag_path(t)) for t in article.tags},
        )
        return Page(path, article.title, markdown, dict(expanded.env.assets))

    def listing(self, site: "SiteContext", path: str, heading: str, articles: list[Article], tags: list[str], *,
                show_tags: bool, intro: str, assets: dict[str, bytes] | None = None) -> Page:
        """The index (or a tag's page): the articles newest first with summaries and tags."""
        markdown = site.render(
            "authored/index.md.j2",
            heading=heading,
            intro=Markup(intro),
            articles=[(a, url(path, article_path(a))) for a in articles],
            tag_urls={t: url(path, tag_path(t)) for t in tags},
            show_tags=show_tags,
            feed_url=posixpath.relpath(FEED, posixpath.dirname(path)),
            guide_url=url(path, GUIDE),
        )
        return Page(path, heading, markdown, assets or {})
