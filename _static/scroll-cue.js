// Wide tables, code and printed tables scroll sideways on a narrow screen.
// Fade the edge on the side where more is hidden, so a reader sees there is
// more. A display formula too wide even after breaking into lines (see
// _ext/book_math.py: an aligned block does not break, nor does a matrix) is
// first set smaller, down to SMALLEST of its size, to fit. Boxes are looked
// at only when they come near the screen, not all at once when the page
// loads.
//
// It also does what the theme's script did in one pass when the page had
// loaded (_ext/book_pages.py leaves that pass out): a code block or an
// output that scrolls gets a tab stop, so that a keyboard can scroll it; one
// that does not, none. It waits until sections.js has laid out every section
// (measuring a box in a section that waits would lay it out early), then
// measures a few boxes at a time while the browser is idle.
(() => {
  const SELECTOR = ".pst-scrollable-table-container, div.math > .katex-display, " +
    ".d2l-source pre, div.cell_input pre, div.tag_scroll-output div.cell_output pre";
  const SMALLEST = 0.75;
  const mark = (box) => {
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("more-right", hidden > 1 && box.scrollLeft < hidden - 1);
    box.classList.toggle("more-left", hidden > 1 && box.scrollLeft > 1);
  };
  const fit = (box) => {
    box.style.fontSize = "";
    let scale = 1;
    // Smaller type may break into lines differently: measure again.
    for (let tries = 0; tries < 3 && box.scrollWidth > box.clientWidth + 1 &&
      scale > SMALLEST; tries++) {
      scale = Math.max(SMALLEST, scale * box.clientWidth / box.scrollWidth - 0.005);
      box.style.fontSize = `${scale}em`;
    }
  };
  const look = (box) => {
    if (box.clientWidth === 0) return;  // hidden, as in a closed solution
    if (box.matches("div.math > .katex-display")) fit(box);
    mark(box);
  };
  const near = new Set();
  const watcher = new IntersectionObserver((entries) => {
    for (const { target, isIntersecting } of entries) {
      if (isIntersecting) {
        near.add(target);
        look(target);
      } else {
        near.delete(target);
      }
    }
  }, { rootMargin: "400px 0px" });
  document.querySelectorAll(SELECTOR).forEach((box) => watcher.observe(box));
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(SELECTOR)) mark(event.target);
  }, true);
  const lookAgain = () => near.forEach(look);
  window.addEventListener("resize", lookAgain);

  // Work split into pieces that run while the browser is idle; sections.js,
  // which the page loads after this file, uses it too.
  const whenIdle = window.bookWhenIdle = "requestIdleCallback" in window
    ? (work) => requestIdleCallback(work)
    : (work) => setTimeout(() => {
      const start = performance.now();
      work({ timeRemaining: () => 8 - (performance.now() - start) });
    }, 30);
  const TAB_STOPS = "pre, .cell_output > .output, .pst-scrollable-table-container";
  const tabStop = (box) => {
    const scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
    box.tabIndex = scrolls ? 0 : -1;
  };
  let pending = [];
  const setTabStops = (deadline) => {
    while (pending.length && deadline.timeRemaining() > 4) tabStop(pending.pop());
    if (pending.length) whenIdle(setTabStops);
  };
  const allTabStops = () => {
    const idle = pending.length === 0;
    pending = [...document.querySelectorAll(TAB_STOPS)].reverse();
    if (idle) whenIdle(setTabStops);
  };
  if (document.documentElement.classList.contains("sections-laid-out")) allTabStops();
  else document.addEventListener("sections-laid-out", allTabStops);
  let resized;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(allTabStops, 300);
  });

  // A listing or a solution opened: what it holds gets a width and its
  // tab stops.
  const opened = () => {
    lookAgain();
    allTabStops();
  };
  document.addEventListener("toggle", opened, true);
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest(".toggle-button, .admonition-title")) {
      requestAnimationFrame(opened);
    }
  });
  // Widths change once the formulas' fonts arrive.
  document.fonts.ready.then(lookAgain);
})();
