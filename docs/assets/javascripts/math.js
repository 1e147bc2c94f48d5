// Typeset the lessons' maths with the KaTeX that this site serves itself (no CDN).
// pymdownx.arithmatex (generic mode) leaves \( ... \) in <span class="arithmatex"> and
// \[ ... \] in <div class="arithmatex">; the hook loads KaTeX only on pages that have them.
(function () {
  function typeset(root) {
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.dataset.typeset) return;
      var tex = el.textContent.trim().replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "");
      katex.render(tex, el, { displayMode: el.tagName === "DIV", throwOnError: false });
      el.dataset.typeset = "1";
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) { typeset(doc && doc.body ? doc.body : document.body); });
  } else {
    typeset(document.body);
  }
})();
