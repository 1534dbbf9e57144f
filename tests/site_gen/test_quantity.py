"""Formatting with units and sensible precision, and the traceability markup around numbers."""

from __future__ import annotations

import html
import re
from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_gen.limitations import Limitation
from site_gen.quantity import format_number, format_value, traced

SHA = "ab" * 32


def test_precision_examples():
    assert format_number(25.778169650885744) == "25.8"
    assert format_number(1.0769342620955185) == "1.08"
    assert format_number(0.7376701920484424) == "0.738"
    assert format_number(43316.62505863769) == "43,317"
    assert format_number(2048) == "2,048"
    assert format_number(0.0) == "0"
    assert format_number(True) == "yes"


def test_units_and_byte_scaling():
    assert str(format_value(47104131072, "B")) == "43.9\u202fGiB"
    assert str(format_value(512, "B")) == "512\u202fB"
    assert str(format_value(99.8, "%")) == "99.8%"
    assert str(format_value(None, "s")) == "n/a"
    # a field in MiB (llama.cpp's buffer sizes) is rescaled as bytes are: not "41,298 MiB"
    assert str(format_value(41297.69, "MiB")) == "40.3\u202fGiB"
    assert str(format_value(668.25, "MiB")) == "668\u202fMiB"
    # a duration under a second reads in ms, beside the times in ms around it: not "0.0480 s"
    assert str(format_value(0.048, "s")) == "48.0\u202fms"
    assert str(format_value(-0.5, "s")) == "-500\u202fms"
    assert [str(format_value(v, "s")) for v in (0, 1.5, 1)] == ["0\u202fs", "1.50\u202fs", "1\u202fs"]
    assert str(format_value(0.5, "ms")) == "0.500\u202fms"


def test_traced_number_carries_sha_pointer_and_raw_value():
    out = traced(25.778169650885744, "tokens/s", SHA, "/cases/0/groups/1/server_decode_tokens_per_second/median")
    assert f'data-sha256="{SHA}"' in out
    assert 'data-pointer="/cases/0/groups/1/server_decode_tokens_per_second/median"' in out
    assert "raw value 25.778169650885744" in out
    assert ">25.8\u202ftokens/s</span>" in out


def test_derived_number_shows_formula_and_inputs():
    out = traced(135.0, "J", SHA, None, formula="joules / completed_output_tokens",
                 inputs={"joules": "/cases/0/groups/0/resources/gpu_energy/joules", "completed_output_tokens": "/cases/0/groups/0/completed_output_tokens"})
    assert "data-pointer" not in out
    assert 'data-formula="joules / completed_output_tokens"' in out
    assert "joules = /cases/0/groups/0/resources/gpu_energy/joules" in out


def test_limitation_marker_links_to_its_note():
    lim = Limitation("percentile-p95-minimum-samples", "/x", "p95 withheld: 5 < 200 <b>", "generator", "p95")
    out = traced(None, "s", SHA, "/x", limitations=[lim], text="withheld")
    assert f'href="#{lim.anchor}"' in out and "&lt;b&gt;" in out and "<b>" not in out


def test_withheld_cell_says_why_and_where_without_a_raw_value():
    lim = Limitation("percentile-p95-minimum-samples", "/s", "p95 withheld: 5 samples, below 200", "generator", "p95")
    out = traced(None, "s", SHA, "/s", limitations=[lim], text="withheld", reason=lim.text)
    title = html.unescape(re.search(r'<span class="bl-num"[^>]* title="([^"]*)">withheld</span>', out).group(1))
    assert title == f"p95 withheld: 5 samples, below 200 · record sha256 {SHA} · pointer /s"
    assert "raw value" not in traced(None, "", SHA, "/m", text="not sampled")
    assert "raw value null" in traced(None, "", SHA, "/m")  # an unlabelled null is shown as such


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15))
def test_formatted_numbers_are_the_value_to_three_significant_digits(value):
    """Below 1,000 a number is its exact value rounded (half to even) to three significant
    digits, trailing zeros kept; from 1,000 on, to a whole number. The reference is Decimal's
    rounding of the exact binary value, not the formatting code."""
    shown = format_number(value)
    assert len(shown) < 24
    if value == 0:
        assert shown == "0"
        return
    exact = Decimal(value)
    step = Decimal(1) if abs(exact) >= 1000 else Decimal(1).scaleb(exact.adjusted() - 2)
    assert Decimal(shown.replace(",", "")) == exact.quantize(step, rounding=ROUND_HALF_EVEN), (value, shown)
    if 1e-3 <= abs(value) < 1000:
        assert len(re.sub(r"[^0-9]", "", shown).lstrip("0")) >= 3, (value, shown)  # "1.50", not "1.5"


@given(st.text(min_size=1, max_size=40), st.floats(allow_nan=False, allow_infinity=False))
def test_any_pointer_text_stays_inside_its_attribute(token, value):
    pointer = "/" + token.replace("~", "~0").replace("/", "~1")
    out = traced(value, "s", SHA, pointer)
    match = re.fullmatch(r'<span class="bl-num" data-sha256="[0-9a-f]{64}" data-pointer="([^"]*)" title="([^"]*)">([^<]*)</span>', out)
    assert match is not None
    assert html.unescape(match.group(1)) == pointer  # the record's own key, as verify --site reads it back


@pytest.mark.parametrize("low, high, unit, digits, shown", [
    (1.0771, 1.0794, "tokens/s", 4, ("1.077\u202ftokens/s", "1.079\u202ftokens/s")),  # read "1.08–1.08" before
    (249.1, 249.4, "", 4, ("249.1", "249.4")),
    (11.37, 11.64, "s", 3, ("11.4\u202fs", "11.6\u202fs")),  # three digits tell them apart already
    (2.0, 2.0, "", 3, ("2.00", "2.00")),  # the same value: the same text
])
def test_a_range_gets_the_digits_that_tell_its_ends_apart(low, high, unit, digits, shown):
    from site_gen.quantity import range_digits

    assert range_digits(low, high, unit) == digits
    assert (str(format_value(low, unit, digits)), str(format_value(high, unit, digits))) == shown


def test_verify_site_reads_a_range_end_shown_with_more_digits_and_refuses_a_wrong_one():
    from site_gen.audit.numbers import reads_as

    assert reads_as("1.077\u202ftokens/s", 1.0771, "/x/median") and reads_as("1.08\u202ftokens/s", 1.0771, "/x/median")
    assert not reads_as("1.078\u202ftokens/s", 1.0771, "/x/median")


@pytest.mark.parametrize("text,value,pointer,reads", [
    # 41297.69 in `reported_mib` shows as 40.3 GiB; in a field of bytes it would be 40.3 KiB
    ("40.3\u202fGiB", 41297.69, "/cases/0/placement/buffers/1/reported_mib", True),
    ("40.3\u202fGiB", 41297.69, "/cases/0/placement/buffers/1/size_bytes", False),
    ("40.3\u202fTiB", 41297.69, "/cases/0/placement/buffers/1/reported_mib", False),
    ("40.3\u202fKiB", 41297.69, "/cases/0/placement/buffers/1/size_bytes", True),
    # 0.048 in `capture_seconds` shows as 48.0 ms; in a field of milliseconds it would be 0.0480 ms
    ("48.0\u202fms", 0.048, "/measurements/0/capture_seconds", True),
    ("48.0\u202fms", 0.048, "/measurements/0/mean_ms", False),
    ("0.0480\u202fs", 0.048, "/measurements/0/capture_seconds", False),
    # a summary's statistic is in the unit of the field above it: a maximum of 5 in `.._ms`
    # reads 5 ms, never 5 s; a maximum of 1,048,576 in `.._bytes` reads 1.00 MiB, never 1.00 TiB
    ("5\u202fms", 5, "/phases/decode/duration_ms/maximum", True),
    ("5\u202fs", 5, "/phases/decode/duration_ms/maximum", False),
    ("1.00\u202fMiB", 1048576, "/resources/process_rss_bytes/maximum", True),
    ("1.00\u202fTiB", 1048576, "/resources/process_rss_bytes/maximum", False),
    # where the name declares no unit, the page chose one: any of its ladder's (fit_target, MiB)
    ("1.00\u202fGiB", 1024, "/cases/0/fit_target", True),
    ("1.00\u202fGiB", 1000, "/cases/0/fit_target", False),
])
def test_verify_site_reads_a_rescaled_number_in_the_unit_its_field_declares(text, value, pointer, reads):
    from site_gen.audit.numbers import reads_as

    assert reads_as(text, value, pointer) is reads


def test_a_range_writes_its_unit_once_in_the_unit_both_ends_read_in():
    """A median of 0.2 s reads "200 ms"; the range under it read "0.195–0.210", another number
    to a reader, once durations under a second were shown in ms."""
    from site_gen.audit.numbers import reads_as
    from site_gen.audit.scan import scan_page
    from site_gen.quantity import traced_range

    shown = traced_range(0.195, 0.21, "s", SHA, ("/g/ttft/minimum", "/g/ttft/maximum"))
    assert re.sub(r"<[^>]+>", "", shown) == "195–210\u202fms"
    assert 'data-unit="ms"' in shown and shown.count("data-unit") == 1
    # ends in different units keep both; an end the record lacks reads n/a
    assert re.sub(r"<[^>]+>", "", traced_range(0.95, 1.2, "s", SHA, ("/a", "/b"))) == "950\u202fms–1.20\u202fs"
    assert re.sub(r"<[^>]+>", "", traced_range(25.6, 26.2, "tokens/s", SHA, ("/a", "/b"))) == "25.6–26.2\u202ftokens/s"
    assert re.sub(r"<[^>]+>", "", traced_range(99.7, 99.9, "%", SHA, ("/a", "/b"))) == "99.7–99.9%"
    # verify --site reads the first end with the unit written after the range, and only so
    first, second = scan_page(shown).numbers
    assert first.text == "195\u202fms" and reads_as(first.text, 0.195, first.pointer)
    assert reads_as(second.text, 0.21, second.pointer)
    (wrong,) = scan_page(shown.split("–")[0].replace('data-unit="ms"', 'data-unit="s"')).numbers
    assert not reads_as(wrong.text, 0.195, wrong.pointer)


def test_counted_puts_the_noun_in_the_number_the_count_takes():
    from site_gen.quantity import counted

    assert counted(1, "record") == "1 record"
    assert [counted(n, "case") for n in (0, 2, 1000)] == ["0 cases", "2 cases", "1,000 cases"]
    assert counted(3, "series", "series") == "3 series"


@pytest.mark.parametrize("value, shown", [
    (0.9997, "1.00"), (1.0003, "1.00"),  # two ratios a hair either side of 1 read alike ("1.000 ×" and "1.00 ×" before)
    (9.9996, "10.0"), (99.96, "100"), (999.6, "1,000"), (0.09996, "0.100"),
])
def test_a_number_rounded_into_the_next_power_of_ten_keeps_its_significant_digits(value, shown):
    assert format_number(value) == shown


_LADDER_FIELDS = ["/m/0/mean_ms", "/m/0/capture_seconds", "/m/0/wall_s", "/m/0/peak_bytes", "/b/1/reported_mib",
                  "/phases/decode/duration_ms/maximum", "/x/fit_target", "/x/server_decode_tokens_per_second/mean"]


@given(value=st.floats(min_value=1e-6, max_value=1e15, allow_nan=False) | st.integers(min_value=1, max_value=2**53),
       unit=st.sampled_from(["", "B", "bytes", "KiB", "MiB", "GiB", "ms", "s", "tokens/s", "%"]),
       pointer=st.sampled_from(_LADDER_FIELDS))
def test_a_unit_the_build_accepts_is_one_verify_site_reads_back(value, unit, pointer):
    """The build's rule for a cited unit (`misread_unit`) and the audit's for the number it shows
    (`reads_as`) are one rule: what a build shows for a unit it accepts reads back as its value,
    and a unit it refuses would show a number the audit calls edited, unless both spell alike."""
    from site_gen.audit.numbers import reads_as
    from site_gen.quantity import misread_unit

    shown = str(format_value(value, unit))
    if misread_unit(unit, pointer) is None:
        assert reads_as(shown, value, pointer)
    else:
        assert not reads_as(shown, value, pointer) or shown == str(format_value(value, misread_unit(unit, pointer)))


def test_a_unit_of_another_ladder_or_none_is_the_author_s_choice():
    from site_gen.quantity import misread_unit

    assert misread_unit("s", "/m/0/mean_ms") == "ms" and misread_unit("MiB", "/m/0/peak_bytes") == "B"
    assert misread_unit("ms", "/m/0/capture_seconds") == "s" and misread_unit("B", "/b/1/reported_mib") == "MiB"
    assert misread_unit("bytes", "/m/0/peak_bytes") is None and misread_unit("ms", "/m/0/mean_ms") is None
    assert misread_unit("", "/m/0/mean_ms") is None and misread_unit("tokens/s", "/m/0/mean_ms") is None
    assert misread_unit("GiB", "/x/fit_target") is None  # no unit declared: the page chooses one
