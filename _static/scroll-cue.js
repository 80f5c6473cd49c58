// Wide tables, equations and figures scroll sideways on a narrow screen. Fade
// the edge on the side where more is hidden, so a reader sees there is more.
// A figure only a little wider than its box shrinks to fit instead: its text
// stays legible (at least 1 / FIT of its size) and nothing needs scrolling.
(() => {
  const SELECTOR = ".pst-scrollable-table-container, div.math > .katex-display, " +
    ".figure-scroll, .d2l-source pre, div.cell_input pre, " +
    "div.tag_scroll-output div.cell_output pre";
  const FIT = 1.15;
  const mark = (box) => {
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("more-right", hidden > 1 && box.scrollLeft < hidden - 1);
    box.classList.toggle("more-left", hidden > 1 && box.scrollLeft > 1);
  };
  const fit = (img) => {
    const box = img.parentElement;
    const style = getComputedStyle(img);
    const natural = img.naturalWidth + parseFloat(style.paddingLeft) +
      parseFloat(style.paddingRight) + parseFloat(style.borderLeftWidth) +
      parseFloat(style.borderRightWidth);
    const room = box.clientWidth;
    img.classList.toggle("fits-by-shrinking",
      natural > room && natural <= FIT * room);
    mark(box);
  };
  const fitAll = () => document.querySelectorAll(".figure-scroll > img").forEach(fit);
  const markAll = () => document.querySelectorAll(SELECTOR).forEach(mark);
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(SELECTOR)) mark(event.target);
  }, true);
  // A control's figure changes with its sliders: fit each new one.
  document.addEventListener("load", (event) => {
    if (event.target instanceof HTMLImageElement &&
        event.target.parentElement.classList.contains("figure-scroll")) fit(event.target);
  }, true);
  window.addEventListener("resize", () => { fitAll(); markAll(); });
  window.addEventListener("load", () => { fitAll(); markAll(); });
  // Widths change once the formulas' fonts arrive.
  document.fonts.ready.then(markAll);
})();
