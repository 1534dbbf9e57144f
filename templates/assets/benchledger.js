// benchledger site script: draws charts with the bundled Vega (no CDN) and checks record
// hashes in the browser with WebCrypto. Everything works from a static host and from file://.
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
    if (copy && navigator.clipboard) {
      navigator.clipboard.writeText(copy.dataset.copy).then(function () { copy.textContent = "copied"; }, function () {});
    }
  });

  document.addEventListener("change", function (event) {
    var input = event.target.closest(".bl-file");
    if (!input || !input.files.length) return;
    var box = input.closest(".bl-audit");
    input.files[0].arrayBuffer().then(function (bytes) { return check(box, bytes, "chosen file"); });
  });

  function drawCharts() {
    if (typeof window.vegaEmbed !== "function") return;  // the static SVG stays
    document.querySelectorAll(".bl-chart-view[data-spec]").forEach(function (view) {
      var spec = JSON.parse(document.getElementById(view.dataset.spec).textContent);
      var target = document.createElement("div");
      target.className = "bl-chart-live";
      view.appendChild(target);
      window.vegaEmbed(target, spec, { actions: false, renderer: "svg", mode: "vega-lite" }).then(function () {
        var fallback = view.querySelector("img");
        if (fallback) fallback.remove();
      }, function () { target.remove(); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawCharts);
  } else {
    drawCharts();
  }
})();
