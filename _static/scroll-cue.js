// Wide tables, equations and figures scroll sideways on a narrow screen. Fade
// the edge on the side where more is hidden, so a reader sees there is more.
(() => {
  const SELECTOR = ".pst-scrollable-table-container, div.math > .katex-display, " +
    "div.cell_output, div.cell_output figure, .d2l-source pre, " +
    "div.tag_scroll-output div.cell_output pre";
  const mark = (box) => {
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("more-right", hidden > 1 && box.scrollLeft < hidden - 1);
    box.classList.toggle("more-left", hidden > 1 && box.scrollLeft > 1);
  };
  const markAll = () => document.querySelectorAll(SELECTOR).forEach(mark);
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(SELECTOR)) mark(event.target);
  }, true);
  window.addEventListener("resize", markAll);
  window.addEventListener("load", markAll);
  // Widths change once the formulas' fonts arrive.
  document.fonts.ready.then(markAll);
})();
