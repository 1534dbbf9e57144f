// benchledger explorer: a sortable, filterable table of every case of one record kind, drawn
// from the data script the page loads (window.benchledgerExplorer[slug]). Plain JavaScript, no
// network: it works from file:// and over http. Record text is only ever set as textContent.
// Only the first rows of the current selection are put in the page (more on request), and a row
// once drawn is kept for the next time it is shown, so that filtering 10,000 rows stays fast; the time of the last filter is kept in data-filter-ms.
// The measurements come right after the case and the settings that differ between rows: a setting
// with one value in every row is said once above the table and shown last, so that on a laptop the
// numbers are in view, not a screen's width to the right of a GPU name repeated in every row.
(function () {
  "use strict";

  var PAGE_ROWS = 100;
  var GROUPED = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });  // one formatter: toLocaleString per cell is slow

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // About three significant digits, thousands separated, as the site's other numbers.
  function format(value) {
    if (value === null || value === undefined) return "n/a";
    var abs = Math.abs(value);
    if (Number.isInteger(value) || abs >= 1000) return GROUPED.format(Math.round(value));
    if (abs === 0) return "0";
    if (abs < 0.001) return value.toPrecision(3);
    return value.toFixed(Math.max(0, 2 - Math.floor(Math.log10(abs))));
  }

  // A setting that is a whole number reads with grouped digits, as on the comparison pages
  // ("16,384"); the data keeps the record's own text, which sorting and filtering use.
  function shownText(text) {
    return /^[0-9]{4,}$/.test(text) ? text.replace(/\B(?=([0-9]{3})+$)/g, ",") : text;
  }

  function naturalCompare(a, b) {
    var na = Number(a), nb = Number(b);
    if (a !== "" && b !== "" && !isNaN(na) && !isNaN(nb)) return na - nb;
    return a.localeCompare(b, "en", { numeric: true });
  }

  function Explorer(root, data) {
    this.root = root;
    this.data = data;
    this.columns = data.columns;
    this.rows = data.rows;
    this.strings = data.strings;
    this.sort = null;  // [column index, +1 | -1]
    this.shown = PAGE_ROWS;
    this.filters = {};  // column index -> string index
    this.text = "";
    // Cell c of row r: column 0 is the case link, text columns are string indexes, numbers values.
    // Row layout: [record, point pointer, case label, anchor, ...cells after the link column].
    this.offset = 3;
    var self = this;
    this.haystack = this.rows.map(function (row) {
      var parts = [data.records[row[0]][1], data.records[row[0]][0].slice(0, 12), self.strings[row[2]]];
      for (var c = 1; c < self.columns.length; c++) {
        if (self.columns[c].type !== "text") continue;
        var text = self.strings[row[c + self.offset]];
        parts.push(text);
        if (shownText(text) !== text) parts.push(shownText(text));  // found as typed either way
      }
      return parts.join(" \u0000 ").toLowerCase();
    });
    this.order = this.rows.map(function (_, i) { return i; });
    // Text columns with one value in all rows: summarised once, shown after the numbers.
    this.constant = this.columns.map(function (column, c) {
      if (column.type !== "text" || self.rows.length < 2) return false;
      var first = self.cell(self.rows[0], c);
      return self.rows.every(function (row) { return self.cell(row, c) === first; });
    });
    var kinds = [function (c) { return self.columns[c].type === "link"; },
                 function (c) { return self.columns[c].type === "text" && !self.constant[c]; },
                 function (c) { return self.columns[c].type === "number"; },
                 function (c) { return self.constant[c]; }];
    this.display = [];  // column indexes in the order they are shown
    kinds.forEach(function (kind) { self.columns.forEach(function (_, c) { if (kind(c)) self.display.push(c); }); });
    this.drawn = {};  // row index -> its <tr>, built the first time it is shown
    this.selected = this.order.slice();
    this.build();
    this.apply();
  }

  Explorer.prototype.cell = function (row, c) { return row[c + this.offset]; };

  // The case column's text: the record (unless every row has the same one, said above the
  // table instead), the case, and its point ("context 2048"), so that a row scrolled to its
  // last measurement still names what was measured.
  Explorer.prototype.caseName = function (row, record) {
    var self = this, parts = [];
    if (this.data.records.length > 1) parts.push(record[1].replace(/\.json$/, ""));
    if (this.strings[row[2]] !== record[1] || !parts.length) parts.push(this.strings[row[2]]);
    this.columns.forEach(function (column, c) {
      if (column.point && !self.constant[c]) parts.push(column.label + " " + shownText(self.strings[self.cell(row, c)]));
    });
    return parts.join(" · ");
  };

  Explorer.prototype.build = function () {
    var self = this, root = this.root;
    var bar = el("div", "bl-explorer-filters");
    var search = el("input", "bl-explorer-search");
    search.type = "search";
    search.placeholder = "Filter: any text (model, GPU, record path, hash prefix)";
    search.setAttribute("aria-label", "Filter rows by text");
    search.addEventListener("input", function () { self.text = search.value.trim().toLowerCase(); self.shown = PAGE_ROWS; self.apply(); });
    bar.appendChild(search);
    var same = this.data.records.length === 1 && this.rows.length > 1 ? [["record", this.data.records[0][1]]] : [];
    this.columns.forEach(function (column, c) {
      if (column.type !== "text") return;
      if (self.constant[c]) { same.push([column.label, shownText(self.strings[self.cell(self.rows[0], c)])]); return; }
      var counts = {};
      self.rows.forEach(function (row) { var s = self.cell(row, c); counts[s] = (counts[s] || 0) + 1; });
      var values = Object.keys(counts).map(Number).sort(function (a, b) { return naturalCompare(self.strings[a], self.strings[b]); });
      var label = el("label", "bl-explorer-filter");
      label.appendChild(el("span", "", column.label + " "));
      var select = el("select");
      select.dataset.column = column.name;
      select.appendChild(new Option("all (" + self.rows.length + ")", ""));  // rows, as each value's count is
      values.forEach(function (s) { select.appendChild(new Option(shownText(self.strings[s]) + " (" + counts[s] + ")", String(s))); });
      select.addEventListener("change", function () {
        if (select.value === "") delete self.filters[c]; else self.filters[c] = Number(select.value);
        self.shown = PAGE_ROWS;
        self.apply();
      });
      label.appendChild(select);
      bar.appendChild(label);
    });
    root.appendChild(bar);
    if (same.length) {
      var summary = el("p", "bl-explorer-same");
      summary.appendChild(el("span", "bl-explorer-same-label", "Same in all " + this.rows.length + " rows:"));
      same.forEach(function (pair) {
        var item = el("span");
        item.appendChild(el("span", "", pair[0] + " "));
        item.appendChild(el("strong", "", pair[1]));
        summary.appendChild(item);
      });
      root.appendChild(summary);
    }
    this.status = el("p", "bl-explorer-status");
    this.status.setAttribute("aria-live", "polite");
    root.appendChild(this.status);
    var scroll = el("div", "bl-scroll");
    var table = el("table", "bl-table bl-explorer-table");
    var thead = el("thead"), tr = el("tr");
    this.headers = [];
    this.display.forEach(function (c) {
      var column = self.columns[c];
      var th = el("th");
      if (self.constant[c]) th.className = "bl-explorer-constant";
      var button = el("button", "bl-explorer-sort", column.label + (column.unit ? " (" + column.unit + ")" : ""));
      button.type = "button";
      button.title = "Sort by " + column.label;
      button.addEventListener("click", function () { self.sortBy(c); });
      th.appendChild(button);
      tr.appendChild(th);
      self.headers[c] = th;
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    this.tbody = el("tbody");
    table.appendChild(this.tbody);
    scroll.appendChild(table);
    root.appendChild(scroll);
    this.more = el("button", "bl-explorer-more", "Show more rows");
    this.more.type = "button";
    this.more.addEventListener("click", function () { self.shown += PAGE_ROWS; self.render(); });
    root.appendChild(this.more);
  };

  Explorer.prototype.sortBy = function (c) {
    var direction = this.sort && this.sort[0] === c ? -this.sort[1] : 1;
    this.sort = [c, direction];
    var self = this, column = this.columns[c];
    var key;
    if (column.type === "number") key = function (i) { return self.cell(self.rows[i], c); };
    else if (column.type === "text") key = function (i) { return self.strings[self.cell(self.rows[i], c)]; };
    else key = function (i) { return self.data.records[self.rows[i][0]][1] + " " + self.strings[self.rows[i][2]]; };
    this.order.sort(function (a, b) {
      var ka = key(a), kb = key(b);
      if (ka === null || ka === undefined) return (kb === null || kb === undefined) ? a - b : 1;  // n/a last
      if (kb === null || kb === undefined) return -1;
      var d = column.type === "number" ? ka - kb : naturalCompare(ka, kb);
      return d !== 0 ? d * direction : a - b;
    });
    this.headers.forEach(function (th, i) {
      th.setAttribute("aria-sort", i === c ? (direction > 0 ? "ascending" : "descending") : "none");
    });
    this.apply();
  };

  Explorer.prototype.apply = function () {
    var started = performance.now();
    var self = this, text = this.text, filters = Object.keys(this.filters).map(Number);
    this.selected = this.order.filter(function (i) {
      var row = self.rows[i];
      for (var f = 0; f < filters.length; f++) {
        if (self.cell(row, filters[f]) !== self.filters[filters[f]]) return false;
      }
      return !text || self.haystack[i].indexOf(text) !== -1;
    });
    this.render();
    this.root.dataset.filterMs = (performance.now() - started).toFixed(2);
  };

  Explorer.prototype.origin = function (row, column, value) {
    var record = this.data.records[row[0]];
    var parts = ["record sha256 " + record[0]];
    if (column.pointer) parts.push("pointer " + row[1] + column.pointer);
    else parts.push("derived: " + column.formula, "inputs: " + column.inputs.map(function (io) { return io[0] + " = " + row[1] + io[1]; }).join("; "));
    if (value === null) {
      if (column.available) parts.push("unavailable: see " + row[1] + column.available);
    } else {
      parts.push("value " + value + " (rounded to " + this.data.digits + " significant digits; the record has the exact one)");
    }
    return parts.join(" · ");
  };

  Explorer.prototype.tr = function (index) {
    var cached = this.drawn[index];
    if (cached) return cached;
    var self = this, row = this.rows[index], record = this.data.records[row[0]];
    var tr = el("tr");
    this.display.forEach(function (c) {
      var column = self.columns[c];
      var td = el("td");
      if (self.constant[c]) td.className = "bl-explorer-constant";
      if (column.type === "link") {
        var a = el("a", "", self.caseName(row, record));
        var anchor = self.strings[row[3]];
        a.setAttribute("href", record[2] + (anchor ? "#" + encodeURIComponent(anchor) : ""));
        a.title = "record sha256 " + record[0];
        td.appendChild(a);
      } else if (column.type === "text") {
        td.textContent = shownText(self.strings[self.cell(row, c)]);
      } else {
        var value = self.cell(row, c);
        var span = el("span", "bl-num" + (column.formula ? " bl-derived" : ""), value === null && column.available ? "unavailable" : format(value));  // its unit heads the column
        span.dataset.sha256 = record[0];
        if (column.pointer) span.dataset.pointer = row[1] + column.pointer;
        span.title = self.origin(row, column, value);
        td.appendChild(span);
      }
      tr.appendChild(td);
    });
    this.drawn[index] = tr;
    return tr;
  };

  Explorer.prototype.render = function () {
    var fragment = document.createDocumentFragment();
    var count = Math.min(this.shown, this.selected.length);
    for (var k = 0; k < count; k++) fragment.appendChild(this.tr(this.selected[k]));
    this.tbody.replaceChildren(fragment);
    this.status.textContent = this.selected.length + " of " + this.rows.length + " rows match" +
      (count < this.selected.length ? "; showing the first " + count : "") + ".";
    this.more.hidden = count >= this.selected.length;
  };

  function start() {
    var registry = window.benchledgerExplorer || {};
    document.querySelectorAll(".bl-explorer[data-explorer]").forEach(function (root) {
      var data = registry[root.dataset.explorer];
      if (!data) {
        root.appendChild(el("p", "bl-left-out", "The explorer's data script did not load."));
        return;
      }
      root.explorer = new Explorer(root, data);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
