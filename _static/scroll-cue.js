// Wide tables, code and printed tables scroll sideways on a narrow screen.
// Fade the edge on the side where more is hidden, so a reader sees there is
// more. A display formula too wide even after breaking into lines (see
// _ext/book_math.py: an aligned block does not break, nor does a matrix) is
// first set smaller, down to SMALLEST of its size, to fit.
(() => {
  const SELECTOR = ".pst-scrollable-table-container, div.math > .katex-display, " +
    ".d2l-source pre, div.cell_input pre, div.tag_scroll-output div.cell_output pre";
  const SMALLEST = 0.75;
  const mark = (box) => {
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("more-right", hidden > 1 && box.scrollLeft < hidden - 1);
    box.classList.toggle("more-left", hidden > 1 && box.scrollLeft > 1);
  };
  // Each such formula is fitted when its box gets a width (on load, when
  // the window is resized, when a hidden solution opens) and again once the
  // formulas' fonts have arrived.
  const widths = new WeakMap();
  const fit = (box) => {
    widths.set(box, box.clientWidth);
    box.style.fontSize = "";
    let scale = 1;
    // Smaller type may break into lines differently: measure again.
    for (let tries = 0; tries < 3 && box.scrollWidth > box.clientWidth + 1 &&
      scale > SMALLEST; tries++) {
      scale = Math.max(SMALLEST, scale * box.clientWidth / box.scrollWidth - 0.005);
      box.style.fontSize = `${scale}em`;
    }
    mark(box);
  };
  const formulas = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (target.clientWidth > 0 && widths.get(target) !== target.clientWidth) fit(target);
    }
  });
  const displays = document.querySelectorAll("div.math > .katex-display");
  displays.forEach((box) => formulas.observe(box));
  const markAll = () => document.querySelectorAll(SELECTOR).forEach(mark);
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(SELECTOR)) mark(event.target);
  }, true);
  // A listing's code has no width while its listing is closed.
  document.addEventListener("toggle", (event) => {
    if (event.target instanceof Element) event.target.querySelectorAll(SELECTOR).forEach(mark);
  }, true);
  window.addEventListener("resize", markAll);
  window.addEventListener("load", markAll);
  // Widths change once the formulas' fonts arrive.
  document.fonts.ready.then(() => {
    displays.forEach((box) => { if (box.clientWidth > 0) fit(box); });
    markAll();
  });
})();
