"""The authored article: Markdown prose under docs/articles/ whose front matter names the sealed
records it cites. Validated on construction; every problem in every file is reported at once as
`file:LINE: reason`."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from benchledger.errors import InputError, Problem, ProblemsError
from benchledger.files import read_input
from benchledger.records.digest import MIN_PREFIX_HEX
from benchledger.records.jsonread import first_lone_surrogate

if TYPE_CHECKING:
    from benchledger.records.store import SealedRecord

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")  # \Z, not "$": that also matches before a final newline
_HEX = re.compile(r"^[0-9a-f]+\Z")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*\Z")
_REQUIRED = ("title", "date", "authors", "tags", "summary", "records")
# Slugs the site's own article pages use (posts/index.md, posts/authoring.md in pages/authored.py).
RESERVED_SLUGS = ("index", "authoring")
# Deeper nesting is refused before anything is built: front matter needs two levels (records:),
# and 10,000 nested `[` took PyYAML 16 s and ended in a RecursionError traceback.
MAX_NESTING = 16
_ABSENT = object()  # a required key that is not there (`title:` with no value is None, and wrong)


@dataclass(frozen=True)
class RecordRef:
    """One entry of the front matter's `records:` map: a short local name for a sealed record."""

    name: str
    ref: str  # a full sha256 or a unique prefix of at least MIN_PREFIX_HEX hex digits
    line: int  # 1-based line of the entry in the article file


@dataclass(frozen=True)
class Article:
    """An authored article, parsed and validated."""

    source: str  # the file as the author knows it (used in every message)
    slug: str
    title: str
    date: dt.date
    authors: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str
    records: tuple[RecordRef, ...]
    body: str  # Markdown with citations not yet expanded
    body_line: int  # 1-based line in `source` where `body` starts

    @classmethod
    def parse(cls, source: str, text: str) -> "Article":
        """Parse one article file's text; raises ProblemsError listing every problem."""
        problems: list[Problem] = []
        lines = text.split("\n")
        if not lines or lines[0].rstrip() != "---":
            raise ProblemsError([Problem(source, "", "an article starts with a '---' front matter line", 1)])
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
        if end is None:
            raise ProblemsError([Problem(source, "", "front matter is not closed by a '---' line", 1)])
        fields = _front_matter(source, "\n".join(lines[1:end]), problems)
        if fields is None:
            raise ProblemsError(problems)

        def get(key: str) -> tuple[Any, int]:
            return fields.get(key, (_ABSENT, 1))  # absent: reported once, as lacking

        for key in sorted(set(fields) - set(_REQUIRED)):
            problems.append(Problem(source, "", f"unknown front matter key {key!r} (known: {', '.join(_REQUIRED)})", fields[key][1]))
        for key in _REQUIRED:
            if key not in fields:
                problems.append(Problem(source, "", f"front matter lacks {key!r}", 1))

        slug = Path(source).stem
        if not _SLUG.match(slug):
            problems.append(Problem(source, "", f"file name {slug!r} must be a slug: lowercase letters, digits and single dashes", 1))
        elif slug in RESERVED_SLUGS:
            problems.append(Problem(source, "", f"file name {slug!r} is a page the site makes itself ({', '.join(RESERVED_SLUGS)}); rename the article file", 1))
        title = _nonempty_str(source, "title", *get("title"), problems)
        summary = _nonempty_str(source, "summary", *get("summary"), problems)
        date, date_line = fields.get("date", (None, 1))
        if "date" in fields and not (isinstance(date, dt.date) and not isinstance(date, dt.datetime)):
            problems.append(Problem(source, "", f"date must be a date written YYYY-MM-DD, not {date!r}", date_line))
            date = None
        authors = _str_list(source, "authors", *get("authors"), problems)
        tags = _str_list(source, "tags", *get("tags"), problems)
        for tag in tags:
            if not _SLUG.match(tag):
                problems.append(Problem(source, "", f"tag {tag!r} must be a slug: lowercase letters, digits and single dashes", get("tags")[1]))
        records = _record_refs(source, fields.get("records"), problems)
        if problems:
            raise ProblemsError(problems)
        return cls(
            source=source, slug=slug, title=title, date=date, authors=authors, tags=tags,
            summary=summary, records=records, body="\n".join(lines[end + 1:]), body_line=end + 2,
        )

    def resolve_records(self, sealed: list["SealedRecord"]) -> dict[str, "SealedRecord"]:
        """Local name -> the sealed record its hash (or unique prefix) names. Raises
        ProblemsError for a hash that is not sealed or a prefix that names several records."""
        problems: list[Problem] = []
        out: dict[str, SealedRecord] = {}
        for ref in self.records:
            matches = [r for r in sealed if r.entry.sha256.startswith(ref.ref)]
            if not matches:
                problems.append(Problem(self.source, "", f"records.{ref.name}: no sealed record has sha256 {ref.ref} (seal it first, or fix the hash)", ref.line))
            elif len(matches) > 1:
                names = ", ".join(f"{r.entry.sha256[:16]}… ({r.entry.path})" for r in matches)
                problems.append(Problem(self.source, "", f"records.{ref.name}: prefix {ref.ref} is ambiguous: it matches {len(matches)} sealed records: {names}; give more digits", ref.line))
            else:
                out[ref.name] = matches[0]
        if problems:
            raise ProblemsError(problems)
        return out


def load_articles(directory: Path, display_root: Path | None = None) -> list[Article]:
    """Every `*.md` under `directory`, newest first (then by slug); all problems in all files
    are reported together. A missing directory means no articles."""
    if not directory.is_dir():
        return []
    articles: list[Article] = []
    problems: list[Problem] = []
    # an article one folder down was left out without a word; say so rather than publish a draft
    for path in sorted(p for p in directory.glob("*/**/*.md") if p.is_file()):
        source = str(path.relative_to(display_root)) if display_root else str(path)
        problems.append(Problem(source, "", "is in a subfolder of the articles folder, which is not read: move it up "
                                            "to publish it, or keep drafts outside the articles folder"))
    for path in sorted(directory.glob("*.md")):
        source = str(path.relative_to(display_root)) if display_root else str(path)
        try:
            text = read_input(path, source, what="an article").decode("utf-8-sig")  # a byte-order mark some editors write is not text
        except UnicodeDecodeError as err:
            problems.append(Problem(source, "", f"not UTF-8 ({err.reason} at byte {err.start})"))
            continue
        except InputError as err:  # e.g. a folder named *.md, a FIFO
            problems.extend(err.problems)
            continue
        try:
            articles.append(Article.parse(source, text))
        except ProblemsError as err:
            problems.extend(err.problems)
    if problems:
        raise ProblemsError(problems, f"{len(problems)} problem(s) in articles")
    return sorted(articles, key=lambda a: (-a.date.toordinal(), a.slug))


def _front_matter(source: str, text: str, problems: list[Problem]) -> dict[str, tuple[Any, int]] | None:
    """Top-level keys -> (value, 1-based line in the file); None after a YAML error or a value
    YAML cannot construct (each such key is reported)."""
    try:
        # anchors and aliases are refused before anything is built from them: an alias bomb
        # ("billion laughs") would expand to gigabytes, and front matter never needs one
        depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                problems.append(Problem(source, "", "front matter uses a YAML anchor or alias (&name / *name); write each value out", event.start_mark.line + 2))
                return None
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_NESTING:
                    problems.append(Problem(source, "", f"front matter nests lists or mappings more than {MAX_NESTING} deep", event.start_mark.line + 2))
                    return None
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        problems.append(Problem(source, "", f"front matter is not valid YAML: {getattr(err, 'problem', err)}", line))
        return None
    if not isinstance(node, yaml.MappingNode):
        problems.append(Problem(source, "", "front matter must be a mapping of keys to values", 2))
        return None
    if _key_problems(source, node, problems):
        return None
    out: dict[str, tuple[Any, int]] = {}
    unreadable = False
    for key_node, value_node in node.value:
        # +2: the front matter starts on line 2 of the file and marks are 0-based.
        line = key_node.start_mark.line + 2
        try:
            if isinstance(value_node, yaml.MappingNode):
                # Keep each entry's own line (the `records:` map): {name as written: (value, line,
                # name as YAML reads it)}. Keyed by the text, not the value: `off` and `no` both
                # read as False and would fall into one entry.
                value: Any = {
                    k.value: (_construct(v), k.start_mark.line + 2, _construct(k)) for k, v in value_node.value
                }
            else:
                value = _construct(value_node)
            if first_lone_surrogate(value) is not None:  # "\ud800" in a double-quoted scalar
                raise ValueError("it holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair): not Unicode text")
        except (yaml.YAMLError, ValueError) as err:  # an unknown tag, an impossible date (2026-13-45)
            problems.append(Problem(source, "", f"{key_node.value}: cannot be read: {getattr(err, 'problem', None) or err}", line))
            unreadable = True
            continue
        out[str(key_node.value)] = (value, line)
    return None if unreadable else out


def _key_problems(source: str, node: yaml.Node, problems: list[Problem]) -> bool:
    """Report keys that are not plain text and keys given twice (YAML would keep the last one
    silently, citing the wrong record), in every mapping; True when any was found."""
    found = False
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in current.value:
                line = key.start_mark.line + 2
                if not isinstance(key, yaml.ScalarNode):
                    problems.append(Problem(source, "", "a key must be plain text, not a list or a mapping", line))
                    found = True
                elif key.value in seen:
                    problems.append(Problem(source, "", f"key {key.value!r} is given twice (first on line {seen[key.value]}); keep one", line))
                    found = True
                else:
                    seen[key.value] = line
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return found


def _construct(node: yaml.Node) -> Any:
    return yaml.SafeLoader("").construct_object(node, deep=True)


def _nonempty_str(source: str, key: str, value: Any, line: int, problems: list[Problem]) -> str:
    if value is _ABSENT:
        return ""
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(source, "", f"{key} must be non-empty text", line))
        return ""
    return " ".join(value.split())


def _str_list(source: str, key: str, value: Any, line: int, problems: list[Problem]) -> tuple[str, ...]:
    if value is _ABSENT:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append(Problem(source, "", f"{key} must be a non-empty list of names, e.g. [{key[:-1]}-one, {key[:-1]}-two]", line))
        return ()
    return tuple(v.strip() for v in value)


def _yaml_kind(value: Any) -> str:
    """What YAML made of a plain word that is not text, as a message names it."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null (no value)"
    return f"a {type(value).__name__}"  # a number or a date starts with a digit: refused as no word first


def _record_refs(source: str, field: tuple[Any, int] | None, problems: list[Problem]) -> tuple[RecordRef, ...]:
    if field is None:
        return ()
    value, line = field
    if value == {}:  # `records: {}`: the article cites nothing yet (a new project's example)
        return ()
    if not isinstance(value, dict):
        problems.append(Problem(source, "", "records must map short names to sealed sha256 hashes, e.g. `offload: 0afb936cac54cc1f` (or `{}` while it cites none)", line))
        return ()
    refs = []
    for name, (ref, ref_line, read_as) in value.items():
        if not _NAME.match(name):
            problems.append(Problem(source, "", f"records: name {name!r} must be a word (letters, digits, _ or -)", ref_line))
        elif not isinstance(read_as, str):  # `off:`, `yes:`, `null:` (YAML 1.1), which no citation could name
            problems.append(Problem(source, "", f"records: YAML reads the name {name} as {_yaml_kind(read_as)}, not as text; "
                                                f"write it in quotes (\"{name}\": ...) as you do the hashes", ref_line))
        if not isinstance(ref, str):
            problems.append(Problem(source, "", f"records.{name}: write the hash in quotes (YAML read {ref!r}, not text)", ref_line))
            continue
        ref = ref.strip().lower()
        if not _HEX.match(ref) or len(ref) > 64:
            problems.append(Problem(source, "", f"records.{name}: {ref!r} is not a sha256 (64 hex digits) or a prefix of one", ref_line))
        elif len(ref) < MIN_PREFIX_HEX:
            problems.append(Problem(source, "", f"records.{name}: prefix {ref!r} is too short: give at least {MIN_PREFIX_HEX} hex digits", ref_line))
        else:
            refs.append(RecordRef(name, ref, ref_line))
    return tuple(refs)
