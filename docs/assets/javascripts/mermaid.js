// Mermaid diagrams shrink to the column, as material draws them, but not below 11/16 of their own size:
// mermaid writes its labels at 16 px, and 11 px is the smallest a reader reads on a phone without zooming.
// A diagram at that floor scrolls sideways in its box (the stylesheet's div.mermaid). material renders each
// diagram with this `mermaid` (the hook loads this file right after it) into a closed shadow root, out of
// the stylesheet's reach: so the floor goes onto the drawing itself, next to the max-width mermaid sets.
(function () {
  if (typeof mermaid === "undefined") return;
  var LABEL_PX = 16, LEGIBLE_PX = 11;
  var render = mermaid.render.bind(mermaid);
  mermaid.render = function () {
    return render.apply(null, arguments).then(function (result) {
      result.svg = result.svg.replace(/(<svg[^>]*?style="max-width: )([\d.]+)px;/, function (all, head, width) {
        var floor = Math.ceil(width * LEGIBLE_PX / LABEL_PX * 10) / 10;  // rounded up: never under 11 px
        return head + width + "px; min-width: " + floor + "px;";
      });
      return result;
    });
  };
})();
