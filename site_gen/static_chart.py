"""A chart's static SVG: the spec it is drawn from (the live spec without what only a tooltip or
an audit reads, its text XML-safe) and the file that names it by that spec's hash. Apart from
site_gen.charts, which draws it, so that `verify --site` can name a chart's SVG from the spec it
checked without loading pandas and vl-convert."""

from __future__ import annotations

import json
from typing import Any

from benchledger.records.digest import sha256_hex
from site_gen import escape
from site_gen.quantity import ORIGIN_TRANSFORM

CHARTS_DIR = "assets/charts"
# vl-convert's Vega bundle, which the live charts run (benchledger.js loads it from here)
VEGA_BUNDLE_PATH = "assets/vendor/vega-bundle.js"
SVG_NAME_HEX = 20  # a chart's file in the site is named by this many hex digits of its spec's sha256


def svg_path(static_sha256: str) -> str:
    """The docs path of the static SVG of the chart whose static spec hashes to `static_sha256`."""
    return f"{CHARTS_DIR}/{static_sha256[:SVG_NAME_HEX]}.svg"


def canonical_json(value: Any) -> str:
    """`value` as JSON with sorted keys and no spaces: one text for one spec, to hash and cache by."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def static_spec(spec: dict) -> dict:
    """The spec the static SVG is drawn from: XML-safe text, and no ARIA. The SVG is shown as an
    <img>, whose alt text is what assistive technology reads (ARIA inside an image file is not
    exposed); Vega's ARIA labels repeated every point's tooltip, record hash and pointer
    included, and were over half of a long series' SVG. The live chart keeps them. Nor do the
    rows carry what only a tooltip or an audit reads (the traces): drawing them cost a cold build
    a tenth more; nor do the layers make each point's source for its tooltip."""
    rows = {name: [{k: v for k, v in row.items() if k not in _NOT_DRAWN} if isinstance(row, dict) else row for row in data]
            for name, data in spec.get("datasets", {}).items()}
    static = {**spec, "datasets": rows}
    if isinstance(layers := spec.get("layer"), list):
        static["layer"] = [_without_origin(layer) for layer in layers]
    if isinstance(meta := spec.get("usermeta"), dict) and POINTS_UNIT in meta:
        static["usermeta"] = {k: v for k, v in meta.items() if k != POINTS_UNIT}
        if not static["usermeta"]:
            del static["usermeta"]
    static = _xml_safe(static)
    static["config"] = {**static.get("config", {}), "aria": False}
    return static


def _without_origin(layer: Any) -> Any:
    """A spec's layer without the transform that makes each point's source for its tooltip."""
    if not isinstance(layer, dict) or not isinstance(layer.get("transform"), list) or ORIGIN_TRANSFORM not in layer["transform"]:
        return layer
    kept = [t for t in layer["transform"] if t != ORIGIN_TRANSFORM]
    return {k: v for k, v in layer.items() if k != "transform"} | ({"transform": kept} if kept else {})


# Where a line chart's spec names the unit its alt text lists the points in (`chart_labels.points_text`):
# for the alt text's audit only, so the static image is drawn, and named, without it.
POINTS_UNIT = "pointsUnit"
_NOT_DRAWN = frozenset({"trace", "x_trace", "low_trace", "high_trace"})  # a data row's fields for the tooltip and the audit only


def _xml_safe(value: Any) -> Any:
    """The spec with every string (keys too) made `escape.xml_chars`: the static SVG is XML.
    The page's interactive spec keeps the text as it is (JSON and HTML hold any character)."""
    if isinstance(value, str):
        return escape.xml_chars(value)
    if isinstance(value, dict):
        return {escape.xml_chars(k) if isinstance(k, str) else k: _xml_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_xml_safe(v) for v in value]
    return value


def static_sha256(static: dict) -> str:
    """The hash of a static spec (`static_spec`), which names its SVG (`svg_path`)."""
    return sha256_hex(canonical_json(static).encode())
