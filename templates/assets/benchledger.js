// benchledger site script: draws charts with the bundled Vega (no CDN) and checks record
// hashes in the browser with WebCrypto, and starts the search page. Everything but search works
// from a static host and from file://; search needs http.
(function () {
  "use strict";

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function say(box, text, state) {
    var out = box.querySelector(".bl-verify-result");
    out.textContent = text;
    out.className = "bl-verify-result" + (state ? " bl-" + state : "");
  }

  async function check(box, bytes, what) {
    if (!(window.crypto && crypto.subtle)) {
      say(box, "This browser offers no WebCrypto here (it needs https, localhost or file://). Use sha256sum.", "error");
      return;
    }
    var actual = hex(await crypto.subtle.digest("SHA-256", bytes));
    var expected = box.dataset.sha256;
    if (actual === expected) {
      say(box, "match: the " + what + " has SHA-256 " + actual + ", as this page states.", "match");
    } else {
      say(box, "mismatch: the " + what + " has SHA-256 " + actual + ", but this page states " + expected + ".", "mismatch");
    }
  }

  document.addEventListener("click", async function (event) {
    var button = event.target.closest(".bl-verify");
    if (button) {
      var box = button.closest(".bl-audit");
      say(box, "checking…", "");
      var response;
      try {
        response = await fetch(box.dataset.src, { cache: "no-store" });
      } catch (err) {
        say(box, "This page cannot read the served record (opened from file://?). Pick the downloaded file below.", "error");
        return;
      }
      if (!response.ok) {
        say(box, "The served record could not be read (HTTP " + response.status + ").", "error");
        return;
      }
      await check(box, await response.arrayBuffer(), "served record");
      return;
    }
    var copy = event.target.closest(".bl-copy");
    if (copy) {
      // said aloud too (a status region): a changed button text alone is not announced
      var done = function (shown, said) {
        copy.textContent = shown;
        announce(said);
        setTimeout(function () { copy.textContent = "copy"; }, 2000);  // ready for the next one
      };
      var failed = function () { done("copy failed", "Could not copy; the full SHA-256 is in the hash's title: " + copy.dataset.copy); };
      if (!navigator.clipboard) { failed(); return; }
      navigator.clipboard.writeText(copy.dataset.copy).then(function () {
        done("copied", "Copied the SHA-256 " + copy.dataset.copy);
      }, failed);
    }
  });

  function announce(text) {
    var region = document.querySelector(".bl-announce");
    if (!region) {
      region = document.createElement("span");
      region.className = "bl-announce bl-sr-only";
      region.setAttribute("role", "status");
      document.body.appendChild(region);
    }
    region.textContent = text;
  }

  document.addEventListener("change", function (event) {
    var input = event.target.closest(".bl-file");
    if (!input || !input.files.length) return;
    var box = input.closest(".bl-audit");
    input.files[0].arrayBuffer().then(function (bytes) { return check(box, bytes, "chosen file"); });
  });

  // --- the signed transparency log: each step of the check, pass or fail ----------------------
  // RFC 9162 Merkle proofs and a C2SP signed checkpoint (Ed25519), checked with WebCrypto only.
  var PIN_KEY = "benchledger:pinned-vkey";
  var SEEN_PREFIX = "benchledger:last-checkpoint:";
  var STEPS = [
    ["record", "the record's bytes hash to the sha256 this page states"],
    ["line", "the ledger line names this record"],
    ["inclusion", "the line is included in the tree of the signed checkpoint"],
    ["signature", "the checkpoint is signed by this site's verifier key"],
    ["pinned", "the checkpoint is signed by the key you pinned"],
    ["consistency", "the checkpoint extends the last one this browser saw for this site"]
  ];

  function fail(message) { var err = new Error(message); err.benchledger = true; return err; }
  function utf8(text) { return new TextEncoder().encode(text); }
  function text(bytes) {
    try { return new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) { throw fail("not UTF-8 text"); }
  }
  function unb64(value) {
    var raw;
    try { raw = atob(value); } catch (e) { throw fail("not valid base64: " + value.slice(0, 40)); }
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }
  function b64(bytes) { return btoa(String.fromCharCode.apply(null, Array.from(bytes))); }
  function unhex(value) {
    if (!/^[0-9a-f]{64}$/.test(value)) throw fail("not a 64-hex-digit hash: " + String(value).slice(0, 70));
    return Uint8Array.from(value.match(/../g), function (h) { return parseInt(h, 16); });
  }
  function concat() {
    var parts = Array.from(arguments), size = parts.reduce(function (n, p) { return n + p.length; }, 0);
    var out = new Uint8Array(size), at = 0;
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }
  function same(a, b) { return a.length === b.length && a.every(function (v, i) { return v === b[i]; }); }
  async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }
  function leafHash(entry) { return sha256(concat(new Uint8Array([0]), entry)); }
  function nodeHash(left, right) { return sha256(concat(new Uint8Array([1]), left, right)); }

  // RFC 9162 2.1.3.2: the root an inclusion proof leads to, or null.
  async function inclusionRoot(index, size, leaf, proof) {
    if (!(index >= 0 && index < size)) return null;
    var fn = index, sn = size - 1, r = leaf;
    for (var i = 0; i < proof.length; i++) {
      if (sn === 0) return null;
      if ((fn & 1) || fn === sn) {
        r = await nodeHash(proof[i], r);
        while (!(fn & 1) && fn !== 0) { fn >>= 1; sn >>= 1; }
      } else {
        r = await nodeHash(r, proof[i]);
      }
      fn >>= 1; sn >>= 1;
    }
    return sn === 0 ? r : null;
  }

  // RFC 9162 2.1.4.2: whether the tree (m, oldRoot) is a prefix of (n, newRoot).
  async function consistent(m, n, oldRoot, newRoot, proof) {
    if (m === n) return proof.length === 0 && same(oldRoot, newRoot);
    if (!(m > 0 && m < n) || proof.length === 0) return false;
    var path = (m & (m - 1)) === 0 ? [oldRoot].concat(proof) : proof.slice();
    var fn = m - 1, sn = n - 1;
    while (fn & 1) { fn >>= 1; sn >>= 1; }
    var fr = path[0], sr = path[0];
    for (var i = 1; i < path.length; i++) {
      if (sn === 0) return false;
      if ((fn & 1) || fn === sn) {
        fr = await nodeHash(path[i], fr);
        sr = await nodeHash(path[i], sr);
        while (!(fn & 1) && fn !== 0) { fn >>= 1; sn >>= 1; }
      } else {
        sr = await nodeHash(sr, path[i]);
      }
      fn >>= 1; sn >>= 1;
    }
    return same(fr, oldRoot) && same(sr, newRoot) && sn === 0;
  }

  // A C2SP signed note holding a tlog-checkpoint body.
  function parseCheckpoint(raw) {
    var note = text(raw), split = note.lastIndexOf("\n\n");
    if (split < 0 || note.slice(-1) !== "\n") throw fail("the checkpoint is not a signed note");
    var body = note.slice(0, split + 1), lines = body.split("\n");
    if (lines.length < 4 || !/^(0|[1-9][0-9]*)$/.test(lines[1])) throw fail("the checkpoint has no origin, tree size and root lines");
    var root = unb64(lines[2]);
    if (root.length !== 32) throw fail("the checkpoint's root is not 32 bytes");
    var signatures = note.slice(split + 2).split("\n").slice(0, -1).map(function (line) {
      if (line.indexOf("\u2014 ") !== 0) throw fail("a signature line of the checkpoint does not start with an em dash");
      var rest = line.slice(2), space = rest.indexOf(" "), blob = unb64(rest.slice(space + 1));
      return { name: rest.slice(0, space), id: blob.slice(0, 4), signature: blob.slice(4) };
    });
    return { origin: lines[0], size: Number(lines[1]), root: root, body: utf8(body), signatures: signatures, raw: note };
  }

  async function parseVkey(line) {
    var value = line.trim(), first = value.indexOf("+"), second = value.indexOf("+", first + 1);
    if (first < 1 || second < 0) throw fail("not a verifier key (NAME+KEYID+BASE64): " + value.slice(0, 60));
    var name = value.slice(0, first), id = value.slice(first + 1, second), key = unb64(value.slice(second + 1));
    if (key.length !== 33 || key[0] !== 1) throw fail("the verifier key is not an Ed25519 key");
    var expected = (await sha256(concat(utf8(name), new Uint8Array([10, 1]), key.slice(1)))).slice(0, 4);
    if (hex(expected) !== id) throw fail("the verifier key's id " + id + " does not belong to its name and key");
    return { name: name, id: expected, publicKey: key.slice(1), text: value };
  }

  async function signedBy(checkpoint, vkey) {
    var key;
    try {
      key = await crypto.subtle.importKey("raw", vkey.publicKey, { name: "Ed25519" }, false, ["verify"]);
    } catch (e) {
      throw fail("this browser's WebCrypto has no Ed25519 (Chromium 137+, Firefox 129+, Safari 17+); use benchledger verify --site");
    }
    for (var i = 0; i < checkpoint.signatures.length; i++) {
      var s = checkpoint.signatures[i];
      if (s.name === vkey.name && same(s.id, vkey.id) &&
          await crypto.subtle.verify({ name: "Ed25519" }, key, s.signature, checkpoint.body)) return true;
    }
    return false;
  }

  function showSteps(box) {
    var list = box.querySelector(".bl-tlog-steps");
    list.textContent = "";
    STEPS.forEach(function (step) {
      var item = document.createElement("li");
      item.dataset.step = step[0];
      item.dataset.state = "pending";
      item.className = "bl-step bl-step-pending";
      item.textContent = step[0] + ": " + step[1] + ": …";
      list.appendChild(item);
    });
    var summary = document.createElement("li");
    summary.className = "bl-step-summary";
    summary.dataset.step = "summary";
    list.appendChild(summary);
    return list;
  }

  function mark(list, name, state, detail) {
    var item = list.querySelector('[data-step="' + name + '"]');
    var label = STEPS.filter(function (s) { return s[0] === name; })[0][1];
    item.dataset.state = state;
    item.className = "bl-step bl-step-" + state;
    item.textContent = name + ": " + { pass: "pass", fail: "FAIL", skip: "skipped", warn: "warning" }[state] + " (" + label + ")" + (detail ? ": " + detail : "");
  }

  function seenKey(box, checkpoint) {
    if (location.protocol === "file:") return SEEN_PREFIX + "file:" + checkpoint.origin;
    return SEEN_PREFIX + new URL(box.dataset.ledger, location.href).href;
  }

  // Where the files come from: the served site, or the files the reader picked (file://).
  function servedFiles(box) {
    return async function (name) {
      var url = name === "record" ? box.dataset.src : box.dataset.ledger + name;
      var response;
      try { response = await fetch(url, { cache: "no-store" }); } catch (e) { throw fail("cannot read " + url + " (opened from file://? pick the downloaded files)"); }
      if (!response.ok) throw fail(url + ": HTTP " + response.status);
      return new Uint8Array(await response.arrayBuffer());
    };
  }

  async function pickedFiles(files) {
    var found = { consistency: {} };
    for (var i = 0; i < files.length; i++) {
      var bytes = new Uint8Array(await files[i].arrayBuffer()), asText = null, doc = null;
      try { asText = new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) { asText = null; }
      if (asText !== null) { try { doc = JSON.parse(asText); } catch (e) { doc = null; } }
      if (doc && typeof doc === "object" && "leaf_index" in doc) found["inclusion"] = bytes;
      else if (doc && typeof doc === "object" && "from_size" in doc) found.consistency[doc.from_size + "-" + doc.to_size] = bytes;
      else if (asText !== null && asText.indexOf("\n\n\u2014 ") >= 0) found["checkpoint"] = bytes;
      else if (asText !== null && /^[^\s+]+\+[0-9a-f]{8}\+[A-Za-z0-9+\/=]+\s*$/.test(asText)) found["vkey"] = bytes;
      else found["record"] = bytes;
    }
    return async function (name) {
      var match = /^consistency\/(\d+-\d+)\.json$/.exec(name);
      var bytes = match ? found.consistency[match[1]] : found[/^inclusion\//.test(name) ? "inclusion" : name];
      if (!bytes) throw fail("pick the downloaded " + (name === "record" ? "record" : "ledger/" + name) + " too");
      return bytes;
    };
  }

  async function checkLog(box, read) {
    var list = showSteps(box), expected = box.dataset.sha256, failed = [];
    function finish() {
      var summary = list.querySelector('[data-step="summary"]');
      summary.dataset.state = failed.length ? "fail" : "pass";
      summary.className = "bl-step-summary bl-step-" + (failed.length ? "fail" : "pass");
      summary.textContent = failed.length ? "FAILED at step " + failed.join(", ") + ": do not trust this page's record or the site's history."
                                          : "every step passed.";
      var warning = box.querySelector(".bl-tlog-warning");
      if (warning) warning.remove();
      if (failed.indexOf("consistency") >= 0) {  // the one failure a reader must not miss
        warning = document.createElement("p");
        warning.className = "bl-tlog-warning";
        warning.setAttribute("role", "alert");
        warning.textContent = "Warning: this site's history was rewritten. The checkpoint it serves now does not extend the one " +
                              "this browser saw before, so records were changed, removed or re-signed since your last visit.";
        list.parentNode.insertBefore(warning, list);
      }
    }
    async function step(name, run) {
      try {
        var outcome = await run();
        mark(list, name, outcome.state, outcome.detail);
        if (outcome.state === "fail") failed.push(name);
        return outcome.state !== "fail";
      } catch (err) {
        mark(list, name, "fail", err.benchledger ? err.message : String(err));
        failed.push(name);
        return false;
      }
    }
    if (!(window.crypto && crypto.subtle)) {
      mark(list, "record", "fail", "this browser offers no WebCrypto here (it needs https, localhost or file://)");
      failed.push("record");
      return finish();
    }
    var checkpoint = null, vkey = null, proof = null;
    await step("record", async function () {
      var actual = hex(await sha256(await read("record")));
      return actual === expected ? { state: "pass", detail: actual } : { state: "fail", detail: "the record hashes to " + actual + ", this page states " + expected };
    });
    var lineOk = await step("line", async function () {
      proof = JSON.parse(text(await read("inclusion/" + expected + ".json")));
      var line = JSON.parse(proof.line);
      return line.sha256 === expected ? { state: "pass", detail: "entry " + proof.leaf_index + " seals " + expected.slice(0, 12) }
                                      : { state: "fail", detail: "the proof's line seals " + String(line.sha256).slice(0, 12) + ", not " + expected.slice(0, 12) };
    });
    await step("inclusion", async function () {
      checkpoint = parseCheckpoint(await read("checkpoint"));
      if (!lineOk) return { state: "fail", detail: "no ledger line for this record to prove" };
      if (proof.tree_size !== checkpoint.size) return { state: "fail", detail: "the proof is for tree size " + proof.tree_size + ", the checkpoint signs " + checkpoint.size };
      var root = await inclusionRoot(proof.leaf_index, proof.tree_size, await leafHash(utf8(proof.line)), proof.hashes.map(unhex));
      return root && same(root, checkpoint.root) ? { state: "pass", detail: "root " + b64(checkpoint.root) + " of " + checkpoint.size + " entries" }
                                                 : { state: "fail", detail: "the proof leads to " + (root ? b64(root) : "no root") + ", the checkpoint signs " + b64(checkpoint.root) };
    });
    await step("signature", async function () {
      if (!checkpoint) checkpoint = parseCheckpoint(await read("checkpoint"));
      vkey = await parseVkey(text(await read("vkey")));
      return await signedBy(checkpoint, vkey) ? { state: "pass", detail: vkey.name }
                                              : { state: "fail", detail: "no valid signature by " + vkey.text };
    });
    await step("pinned", async function () {
      var pinned = localStorage.getItem(PIN_KEY);
      if (!pinned) return { state: "skip", detail: "no key pinned; pin the publisher's key (from a source other than this site) to catch a site re-signed with another key" };
      var key = await parseVkey(pinned);
      return checkpoint && await signedBy(checkpoint, key) ? { state: "pass", detail: key.name }
                                                           : { state: "fail", detail: "the checkpoint carries no valid signature by your pinned key " + key.text };
    });
    await step("consistency", async function () {
      if (!checkpoint) throw fail("no checkpoint to compare");
      var storeKey = seenKey(box, checkpoint), seen = null;
      try { seen = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { seen = null; }
      var remember = function () { localStorage.setItem(storeKey, JSON.stringify({ size: checkpoint.size, root: b64(checkpoint.root), origin: checkpoint.origin })); };
      if (!seen) {
        if (!failed.length) remember();
        return { state: "pass", detail: "first checkpoint this browser sees for this site (tree size " + checkpoint.size + "); remembered" };
      }
      var rewritten = "history was rewritten: this checkpoint (tree size " + checkpoint.size + ") does not extend the one this browser saw (tree size " + seen.size + ", root " + seen.root + ")";
      if (seen.size > checkpoint.size) return { state: "fail", detail: rewritten + "; the log was rolled back" };
      var ok;
      if (seen.size === checkpoint.size) {
        ok = seen.root === b64(checkpoint.root);
      } else {
        var doc;
        try { doc = JSON.parse(text(await read("consistency/" + seen.size + "-" + checkpoint.size + ".json"))); }
        catch (e) { return { state: "fail", detail: rewritten + " (no consistency proof from tree size " + seen.size + " is published)" }; }
        ok = doc.from_size === seen.size && doc.to_size === checkpoint.size &&
             await consistent(seen.size, checkpoint.size, unb64(seen.root), checkpoint.root, doc.hashes.map(unhex));
      }
      if (!ok) return { state: "fail", detail: rewritten };
      if (!failed.length) remember();
      return { state: "pass", detail: "extends tree size " + seen.size + " seen before" };
    });
    finish();
  }

  function setUpLog(box) {
    var pin = box.querySelector(".bl-pin");
    if (pin) {
      pin.value = localStorage.getItem(PIN_KEY) || "";
      pin.addEventListener("change", async function () {
        var value = pin.value.trim();
        if (!value) { localStorage.removeItem(PIN_KEY); return; }
        try { await parseVkey(value); localStorage.setItem(PIN_KEY, value); pin.setCustomValidity(""); }
        catch (err) { pin.setCustomValidity(err.message); pin.reportValidity(); }
      });
    }
    if (box.querySelector(".bl-tlog-check") && /^https?:$/.test(location.protocol)) {
      checkLog(box, servedFiles(box));  // served pages check themselves on every visit
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".bl-tlog-check");
    if (!button) return;
    var box = button.closest(".bl-tlog");
    checkLog(box, servedFiles(box));
  });

  document.addEventListener("change", function (event) {
    var input = event.target.closest(".bl-tlog-files");
    if (!input || !input.files.length) return;
    var box = input.closest(".bl-tlog");
    pickedFiles(input.files).then(function (read) { return checkLog(box, read); });
  });

  // A number's source on a touch screen, where there is no hover: a tap shows its title (the
  // record's sha256 and JSON pointer, or a derived number's formula) as selectable text right
  // after it; a second tap hides it.
  document.addEventListener("click", function (event) {
    var number = event.target.closest(".bl-num");
    if (!number || event.target.closest("a")) return;
    var shown = number.nextElementSibling;
    if (shown && shown.classList.contains("bl-num-source")) {
      shown.remove();
      return;
    }
    var note = document.createElement("span");
    note.className = "bl-num-source";
    note.setAttribute("role", "note");
    note.textContent = number.getAttribute("title") || "";
    number.after(note);
  });

  // Vega's bundle (about 900 KB) is loaded only by a page that has a chart to draw, from beside
  // this script (assets/vendor/), over http and from file:// alike; until it runs, and where it
  // cannot, each chart shows its static SVG.
  var SELF = document.currentScript ? document.currentScript.src : "";

  function drawCharts() {
    var views = document.querySelectorAll(".bl-chart-view[data-spec]");
    if (!views.length) return;
    if (typeof window.vegaEmbed === "function") return drawLive(views);
    if (!SELF) return;
    var bundle = document.createElement("script");
    bundle.src = new URL("vendor/vega-bundle.js", SELF).href;
    bundle.onload = function () { if (typeof window.vegaEmbed === "function") drawLive(views); };
    document.head.appendChild(bundle);
  }

  function drawLive(views) {
    views.forEach(function (view) {
      // The spec is the JSON script of this chart's own block, never whatever else on the page
      // carries that id (an article's prose may name anchors; it can make no script element).
      var block = view.closest(".bl-chart");
      var script = block && block.querySelector('script[type="application/json"]');
      if (!script || script.id !== view.dataset.spec) return;
      var dark = document.body.getAttribute("data-md-color-scheme") === "slate";
      var spec = JSON.parse(script.textContent);
      // The spec's own colours are chosen to read on white; on slate, each is swapped for the
      // lighter one the spec names beside it (the dark theme changes Vega's defaults only).
      var swaps = dark && spec.usermeta && spec.usermeta.darkColours;
      if (swaps) {
        var source = script.textContent;
        Object.keys(swaps).forEach(function (light) { source = source.split('"' + light + '"').join('"' + swaps[light] + '"'); });
        spec = JSON.parse(source);
      }
      // A phone's column is narrower than the drawn width: the SVG scaled down to 5 px text.
      // Draw it to fit instead, its legend below the plot.
      var room = view.clientWidth;
      if (typeof spec.width === "number" && room > 0 && room < spec.width + 150) {
        spec.width = Math.max(160, room - 70);
        spec.config = spec.config || {};
        spec.config.legend = Object.assign({ orient: "bottom" }, spec.config.legend);
      }
      // In the dark scheme a chart is drawn in Vega's dark theme on the page's own ground: dark
      // text on a white box glared out of a slate page.
      if (dark) spec.background = "transparent";
      var target = document.createElement("div");
      target.className = "bl-chart-live";
      view.appendChild(target);
      var options = { actions: false, renderer: "svg", mode: "vega-lite" };
      if (dark) options.theme = "dark";
      window.vegaEmbed(target, spec, options).then(function () {
        var fallback = view.querySelector("img");
        if (fallback) {
          // the static image's text lists every value; the live SVG's own is its tick labels
          target.setAttribute("role", "img");
          target.setAttribute("aria-label", fallback.getAttribute("alt") || "");
          fallback.remove();
        }
        // a redraw for the other scheme replaces the drawing before it, and keeps its label
        view.querySelectorAll(".bl-chart-live").forEach(function (old) {
          if (old === target) return;
          target.setAttribute("role", "img");
          target.setAttribute("aria-label", old.getAttribute("aria-label") || "");
          old.remove();
        });
      }, function () { target.remove(); });
    });
  }

  // The reader's scheme switch redraws the charts already drawn, in the new scheme's colours.
  function redrawOnSchemeChange() {
    new MutationObserver(function () {
      var views = document.querySelectorAll(".bl-chart-view[data-spec]");
      if (views.length && typeof window.vegaEmbed === "function") drawLive(views);
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  // The search page: Pagefind's UI over the site's own index (pagefind/), which a page opened
  // from file:// cannot fetch. Result links are site-root paths: prefix them with this
  // folder, so a site served below a path (/project/) works too. ?q= starts a search.
  function startSearch() {
    var box = document.getElementById("bl-search");
    if (!box) return;
    if (location.protocol === "file:" || typeof window.PagefindUI !== "function") {
      document.querySelector(".bl-search-offline").hidden = false;
      return;
    }
    var base = location.pathname.replace(/[^/]*$/, "");
    // The articles are indexed in shards beside the primary bundle (site_gen/search_index.py):
    // their list comes first, and each is merged as an absolute path (Pagefind fetches from a
    // worker, which would resolve a relative one against its own script).
    var manifest = new URL(box.getAttribute("data-shards"), location.href);
    fetch(manifest.href).then(function (response) {
      return response.ok ? response.json() : [];
    }).catch(function () { return []; }).then(function (shards) {
      var merged = shards.map(function (name) { return { bundlePath: new URL(name + "/", manifest).pathname }; });
      var ui = new window.PagefindUI({ element: "#bl-search", baseUrl: base, showImages: false, showSubResults: true,
                                       resetStyles: false, mergeIndex: merged });
      // Pagefind's form carries action="javascript:void(0)" (its submit handler already stops
      // the submit): the site keeps no javascript: URL anywhere.
      box.querySelectorAll("form[action]").forEach(function (form) { form.removeAttribute("action"); });
      var query = new URLSearchParams(location.search).get("q");
      if (query) ui.triggerSearch(query);
    });
  }

  function start() {
    drawCharts();
    redrawOnSchemeChange();
    document.querySelectorAll(".bl-tlog").forEach(setUpLog);
    startSearch();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
